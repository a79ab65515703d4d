/** The sentences people read while the bot follows a change, and the progress line on the request. */
import { describe, expect, it } from 'vitest';
import { progressOf, type Progress } from '../../../src/core/capacity/follow.js';
import type { CapacityValues } from '../../../src/core/capacity/values.js';
import { requestMessage } from '../../../src/core/render/change.js';
import {
  elapsedText,
  followEndMessage,
  followEndText,
  movingLine,
  PROGRESS_BLOCK,
  watchedText,
  withProgressLine,
  type FollowFacts,
} from '../../../src/core/render/follow.js';
import { changeRequest, mustPlan, service, SERVICE_ID } from '../fixtures.js';
import { assertBlockKitLimits, assertSafeMrkdwn, mrkdwnTexts } from './block-kit.js';

const facts = (target: CapacityValues, overrides: Partial<FollowFacts> = {}) => ({
  serviceName: 'orders-prod',
  serviceId: SERVICE_ID,
  target,
  reads: 3,
  elapsedMs: 12_000,
  watchedMs: 10 * 60_000,
  slashCommand: '/clickhouse',
  ...overrides,
});
const ref = `*orders-prod* \`${SERVICE_ID}\``;
const at = (target: CapacityValues, record: Record<string, unknown> | undefined): Progress =>
  progressOf(target, record ? service(record) : undefined);
const moving = (progress: Progress) => {
  if (progress.kind !== 'moving') throw new Error(`expected moving, got ${progress.kind}`);
  return progress;
};

describe('while the service moves', () => {
  it('says where it is, how often the bot read it and since when', () => {
    const stopped = { state: 'stopped' };
    expect(movingLine(moving(at(stopped, { state: 'stopping' })), facts(stopped))).toBe(
      `:hourglass_flowing_sand: ${ref} is stopping… (read 3 times, 12 s since the API accepted)`,
    );
    const running = { state: 'running' };
    expect(
      movingLine(moving(at(running, { state: 'awaking' })), facts(running, { reads: 1, elapsedMs: 125_000 })),
    ).toBe(`:hourglass_flowing_sand: ${ref} is waking up… (read 1 time, 2 min 5 s since the API accepted)`);
    expect(movingLine(moving(at({ numReplicas: 5 }, { numReplicas: 3 })), facts({ numReplicas: 5 }))).toContain(
      `${ref} does not show the new capacity yet (replicas is 3, not 5)…`,
    );
    expect(movingLine(moving(at(stopped, { state: undefined })), facts(stopped))).toContain(
      'does not show its state yet…',
    );
  });

  it('says durations in seconds while short, then minutes', () => {
    expect(elapsedText(400)).toBe('0 s');
    expect(elapsedText(14_400)).toBe('14 s');
    expect(elapsedText(120_000)).toBe('2 min');
    expect(watchedText(10 * 60_000)).toBe('10 minutes');
    expect(watchedText(60_000)).toBe('1 minute');
    expect(watchedText(3_000)).toBe('3 s');
  });
});

describe('when the bot stops following', () => {
  it('settled: where it is and how long it took', () => {
    const stopped = { state: 'stopped' };
    expect(followEndText('settled', at(stopped, { state: 'stopped' }), facts(stopped, { elapsedMs: 14_000 }))).toBe(
      `:white_check_mark: ${ref} is stopped, 14 s after the API accepted.`,
    );
    const running = { state: 'running' };
    expect(followEndText('settled', at(running, { state: 'running' }), facts(running))).toContain(`${ref} is running,`);
    expect(followEndText('settled', at(running, { state: 'idle' }), facts(running))).toContain(
      'is idle again (it woke, then idled by itself)',
    );
    expect(followEndText('settled', at({ numReplicas: 5 }, { numReplicas: 5 }), facts({ numReplicas: 5 }))).toContain(
      `${ref} shows the new capacity, 12 s after the API accepted.`,
    );
  });

  it('went elsewhere: where it is instead, and how to look', () => {
    const stopped = { state: 'stopped' };
    expect(followEndText('elsewhere', at(stopped, { state: 'failed' }), facts(stopped))).toBe(
      `:warning: ${ref} went elsewhere: it is failed, not on its way to stopped (12 s after the API accepted); something else moved it (a failure, or someone by hand). Check it with \`/clickhouse show orders-prod\`.`,
    );
    expect(
      followEndText('elsewhere', at({ state: 'running' }, { state: 'stopped' }), facts({ state: 'running' })),
    ).toContain('it is stopped, not on its way to running');
    expect(followEndText('elsewhere', at(stopped, undefined), facts(stopped))).toContain(`${ref} no longer exists`);
  });

  it('still moving: plainly, after how long, and how to look', () => {
    const stopped = { state: 'stopped' };
    expect(followEndText('still-moving', at(stopped, { state: 'stopping' }), facts(stopped))).toBe(
      `:hourglass: ${ref} is still stopping after 10 minutes; the bot stops watching. Check it with \`/clickhouse show orders-prod\`.`,
    );
    expect(
      followEndText('still-moving', at({ numReplicas: 5 }, { numReplicas: 3 }), facts({ numReplicas: 5 })),
    ).toContain(`${ref} still does not show the new capacity (replicas is 3, not 5) after 10 minutes`);
    expect(followEndText('still-moving', undefined, facts(stopped, { reads: 4 }))).toBe(
      `:hourglass: The bot could not read ${ref} after the API accepted (tried 4 times over 10 minutes); it stops watching. Check it with \`/clickhouse show orders-prod\`.`,
    );
  });

  it('quotes a name with spaces in the command to type', () => {
    const stopped = { state: 'stopped' };
    expect(followEndText('still-moving', undefined, facts(stopped, { serviceName: 'orders prod' }))).toContain(
      '`/clickhouse show "orders prod"`',
    );
  });

  it('replies in the thread with a notification text naming the service and the request', () => {
    const stopped = { state: 'stopped' };
    const message = followEndMessage('CR-1', 'settled', at(stopped, { state: 'stopped' }), facts(stopped));
    expect(message.text).toBe(`orders-prod (${SERVICE_ID}) after change CR-1: settled`);
    assertBlockKitLimits(message.blocks, { max: 50 });
  });
});

describe('data in the sentences', () => {
  const NAME = '<!channel> *bold* `tick` :fire: \u202Eevil';
  it('escapes the service name everywhere it is said', () => {
    const stopped = { state: 'stopped' };
    const f = facts(stopped, { serviceName: NAME });
    const texts = [
      movingLine(moving(at(stopped, { state: 'stopping' })), f),
      followEndText('settled', at(stopped, { state: 'stopped' }), f),
      followEndText('elsewhere', at(stopped, { state: 'failed' }), f),
      followEndText('still-moving', at(stopped, { state: 'stopping' }), f),
      followEndText('still-moving', undefined, f),
      followEndMessage('CR-1', 'settled', undefined, f).text,
    ];
    for (const text of texts) {
      // Nothing formats inside a code span (the command to type), so only the rest must not.
      const outside = text.replace(/`[^`]*`/g, '');
      expect(text).not.toContain('<!channel>');
      expect(outside).not.toContain(':fire:');
      expect(outside).not.toContain('*bold*');
      expect(text).not.toContain('\u202E');
      assertSafeMrkdwn([{ type: 'section', text: { type: 'mrkdwn', text } }]);
    }
  });
});

describe('the progress line on the request', () => {
  const applied = () =>
    changeRequest(mustPlan(service(), { name: 'orders-main' }), {
      status: 'applied',
      decidedBy: 'U0APPROVER',
      decidedAt: 1,
    });

  it('keeps the record and puts the line after the outcome, before the Undo button', () => {
    const message = requestMessage(applied());
    const shown = withProgressLine(message, 'the line');
    expect(shown.text).toBe(message.text);
    expect(shown.blocks).toHaveLength(message.blocks.length + 1);
    expect(shown.blocks.at(-1)?.type).toBe('actions');
    expect(shown.blocks.at(-2)).toMatchObject({ type: 'context', block_id: PROGRESS_BLOCK });
    expect(mrkdwnTexts(shown.blocks)).toContain('the line');
    assertBlockKitLimits(shown.blocks, { max: 50 });
  });

  it('goes last when there is no button, and never past 50 blocks', () => {
    const message = requestMessage({ ...applied(), extendOf: 'CR-0' });
    expect(withProgressLine(message, 'x').blocks.at(-1)).toMatchObject({ block_id: PROGRESS_BLOCK });
    const full = { text: 't', blocks: Array.from({ length: 50 }, () => message.blocks[0]!) };
    expect(withProgressLine(full, 'x')).toBe(full);
  });
});
