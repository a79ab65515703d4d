/**
 * `help COMMAND` (issue 41): the command's forms, examples and the bounds of its values, each
 * bound from the constant the checks use, so that help and a refusal cannot disagree.
 */
import { describe, expect, it } from 'vitest';
import { helpBlocks, topicHelpBlocks, type HelpContext } from '../../../src/core/render/help.js';
import { parseCommand } from '../../../src/core/command/parse.js';
import type { CommandName } from '../../../src/core/command/catalogue.js';
import { WHEN_MAX_AHEAD_DAYS } from '../../../src/core/command/when.js';
import {
  IDLE_TIMEOUT_MIN_MINUTES,
  REPLICA_MEMORY_MAX_GB,
  REPLICA_MEMORY_MIN_GB,
  REPLICA_MEMORY_STEP_GB,
  REPLICAS_MAX,
  REPLICAS_MIN,
  SERVICE_NAME_MAX,
} from '../../../src/core/service/schema.js';
import { planChange } from '../../../src/core/change/plan.js';
import { assertBlockKitLimits, assertSafeMrkdwn, mrkdwnTexts } from './block-kit.js';
import { service } from '../fixtures.js';

const HERE: HelpContext = { rules: {}, breakGlass: true, temporaryMaxMs: 3 * 3_600_000 };
const topic = (word: CommandName) => mrkdwnTexts(topicHelpBlocks('/ch', word, [word], HERE)).join('\n');

describe('help COMMAND', () => {
  it('gives scale its replica and memory bounds from the constants, and this deployment’s longest for DURATION', () => {
    const text = topic('scale');
    expect(text).toContain('`/ch scale SERVICE replicas|memory VALUE [for DURATION]`');
    expect(text).toContain(`Replicas: ${REPLICAS_MIN} to ${REPLICAS_MAX}`);
    expect(text).toContain(
      `Memory per replica: ${REPLICA_MEMORY_MIN_GB} to ${REPLICA_MEMORY_MAX_GB} GB, a multiple of ${REPLICA_MEMORY_STEP_GB}`,
    );
    expect(text).toContain('for DURATION: from 1m to 3h');
    expect(text).toContain(`at most ${WHEN_MAX_AHEAD_DAYS} days ahead`);
    assertBlockKitLimits(topicHelpBlocks('/ch', 'scale', ['scale'], HERE), { max: 50 });
    assertSafeMrkdwn(topicHelpBlocks('/ch', 'scale', ['scale'], HERE));
  });

  it('gives idle its minimum timeout and rename its longest name', () => {
    expect(topic('idle')).toContain(`at least ${IDLE_TIMEOUT_MIN_MINUTES} minutes`);
    expect(topic('rename')).toContain(`1 to ${SERVICE_NAME_MAX} letters`);
  });

  it('adds no bounds to a command that reads (list) nor to the whole help', () => {
    expect(topic('list')).not.toContain('•');
    const whole = mrkdwnTexts(helpBlocks('/ch', undefined, HERE)).join('\n');
    expect(whole).not.toContain(`Replicas: ${REPLICAS_MIN} to ${REPLICAS_MAX}`);
  });

  it('says the same bounds the planner refuses with: one past the most replicas is refused', () => {
    const parsed = parseCommand(`scale orders-prod replicas ${REPLICAS_MAX + 1}`);
    if (parsed.kind !== 'change') throw new Error(`not a change: ${parsed.kind}`);
    const plan = planChange(service({ numReplicas: 3 }), parsed.intent);
    expect(JSON.stringify(plan)).toContain(`from ${REPLICAS_MIN} to ${REPLICAS_MAX}`);
  });
});
