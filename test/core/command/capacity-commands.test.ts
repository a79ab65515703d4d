/**
 * scale, idle, stop, start and wake as people type them (issue 24): every accepted form reads to
 * the exact intent, every refusal is a sentence plus the command's usage line, help lists every
 * form with its examples, and every example plans against the demo organization as written.
 */
import { describe, expect, it } from 'vitest';
import { planChange } from '../../../src/core/change/plan.js';
import type { ChangeIntent } from '../../../src/core/change/types.js';
import { COMMAND_CATALOGUE, usageOf, type CommandName, type CommandSpec } from '../../../src/core/command/catalogue.js';
import { parseCommand, type Command } from '../../../src/core/command/parse.js';
import { helpBlocks } from '../../../src/core/render/help.js';
import { ServiceRecordSchema } from '../../../src/core/service/schema.js';
import { demoServices } from '../../../src/simulator/seed.js';
import { mrkdwnTexts } from '../render/block-kit.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const CAPACITY_COMMANDS = ['scale', 'idle', 'stop', 'start', 'wake'] as const satisfies readonly CommandName[];

function changeOf(verb: string, service: string, intent: ChangeIntent, durationMs?: number): Command {
  return durationMs === undefined
    ? { kind: 'change', service, intent, verb }
    : { kind: 'change', service, intent, verb, durationMs };
}

function refusal(text: string): { message: string; usage: string } {
  const command = parseCommand(text);
  if (command.kind !== 'invalid') throw new Error(`expected a refusal of ${text}, got ${JSON.stringify(command)}`);
  return { message: command.message, usage: command.usage };
}

/**
 * A refusal is written for people: sentences ending in a full stop, or one ending in an example
 * to copy ("…, like this: scale orders-prod replicas 6 for 4h"); never a bare code or an empty string.
 */
function expectSentence(message: string): void {
  expect(message.trim()).toMatch(/^[A-Z"a-z].*([.!?]|, like this: [a-z]+ \S.*)$/su);
  expect(message).not.toContain('undefined');
  expect(message).not.toContain('[object');
}

describe('scale: every accepted form', () => {
  it.each([
    ['scale orders-prod replicas 6', { min: 6, max: 6 }],
    ['scale orders-prod replica 3', { min: 3, max: 3 }],
    ['scale orders-prod REPLICAS 6', { min: 6, max: 6 }],
    ['scale search-prod replicas 2-6', { min: 2, max: 6 }],
    ['scale search-prod replicas 2 - 6', { min: 2, max: 6 }],
    ['scale search-prod replicas 2–6', { min: 2, max: 6 }],
    ['scale search-prod replicas 2 – 6', { min: 2, max: 6 }],
    ['scale search-prod replicas 2—6', { min: 2, max: 6 }],
    ['scale search-prod replicas 2 to 6', { min: 2, max: 6 }],
    ['scale search-prod replicas 2 TO 6', { min: 2, max: 6 }],
  ])('%s', (text, replicas) => {
    const service = text.split(' ')[1] ?? '';
    expect(parseCommand(text)).toStrictEqual(changeOf('scale', service, { replicas }));
  });

  it.each([
    ['scale orders-prod memory 16', { min: 16, max: 16 }],
    ['scale orders-prod memory 16GB', { min: 16, max: 16 }],
    ['scale orders-prod memory 16 GB', { min: 16, max: 16 }],
    ['scale orders-prod memory 16gb', { min: 16, max: 16 }],
    ['scale orders-prod memory 16 G', { min: 16, max: 16 }],
    ['scale orders-prod memory 8-32', { min: 8, max: 32 }],
    ['scale orders-prod memory 8 - 32', { min: 8, max: 32 }],
    ['scale orders-prod memory 8–32', { min: 8, max: 32 }],
    ['scale orders-prod memory 8 to 32', { min: 8, max: 32 }],
    ['scale orders-prod memory 8GB-32GB', { min: 8, max: 32 }],
    ['scale orders-prod memory 8 GB-32 GB', { min: 8, max: 32 }],
    ['scale orders-prod memory 8 GB - 32 GB', { min: 8, max: 32 }],
    ['scale orders-prod memory 8-32 GB', { min: 8, max: 32 }],
  ])('%s', (text, replicaMemoryGb) => {
    expect(parseCommand(text)).toStrictEqual(changeOf('scale', 'orders-prod', { replicaMemoryGb }));
  });

  it('reads a quoted service name with spaces, and a service literally called "for"', () => {
    expect(parseCommand('scale "analytics staging" replicas 4')).toStrictEqual(
      changeOf('scale', 'analytics staging', { replicas: { min: 4, max: 4 } }),
    );
    expect(parseCommand("scale 'analytics staging' memory 16 for 2h")).toStrictEqual(
      changeOf('scale', 'analytics staging', { replicaMemoryGb: { min: 16, max: 16 } }, 2 * HOUR),
    );
    expect(parseCommand('scale for replicas 4')).toStrictEqual(
      changeOf('scale', 'for', { replicas: { min: 4, max: 4 } }),
    );
  });

  it.each([
    ['scale orders-prod replicas 6 for 4h', { replicas: { min: 6, max: 6 } }, 4 * HOUR],
    ['scale orders-prod replicas 6 for two hours', { replicas: { min: 6, max: 6 } }, 2 * HOUR],
    ['scale search-prod replicas 2 to 8 for 90 minutes', { replicas: { min: 2, max: 8 } }, 90 * MINUTE],
    ['scale search-prod replicas 2 - 8 for 1 day', { replicas: { min: 2, max: 8 } }, 24 * HOUR],
    ['scale orders-prod memory 16 GB-64 GB for 4h', { replicaMemoryGb: { min: 16, max: 64 } }, 4 * HOUR],
    ['scale orders-prod memory 32GB for an hour', { replicaMemoryGb: { min: 32, max: 32 } }, HOUR],
  ])('%s is temporary', (text, intent, ms) => {
    const service = text.split(' ')[1] ?? '';
    expect(parseCommand(text)).toStrictEqual(changeOf('scale', service, intent, ms));
  });
});

describe('idle: every accepted form', () => {
  it.each([
    ['idle orders-prod on', { enabled: true }],
    ['idle orders-prod ON', { enabled: true }],
    ['idle orders-prod enable', { enabled: true }],
    ['idle orders-prod off', { enabled: false }],
    ['idle orders-prod disable', { enabled: false }],
    ['idle orders-prod on after 15m', { enabled: true, timeoutMinutes: 15 }],
    ['idle orders-prod on after 15 minutes', { enabled: true, timeoutMinutes: 15 }],
    ['idle orders-prod on after 1 hour', { enabled: true, timeoutMinutes: 60 }],
    ['idle orders-prod on after 1h', { enabled: true, timeoutMinutes: 60 }],
    ['idle orders-prod on after an hour', { enabled: true, timeoutMinutes: 60 }],
    ['idle orders-prod on AFTER thirty minutes', { enabled: true, timeoutMinutes: 30 }],
    ['idle orders-prod on after 1h 30m', { enabled: true, timeoutMinutes: 90 }],
  ])('%s', (text, idleScaling) => {
    expect(parseCommand(text)).toStrictEqual(changeOf('idle', 'orders-prod', { idleScaling }));
  });

  it.each([
    ['idle orders-prod on for 4h', { enabled: true }, 4 * HOUR],
    ['idle orders-prod on after 15m for 4h', { enabled: true, timeoutMinutes: 15 }, 4 * HOUR],
    ['idle orders-prod on after 1 hour for two hours', { enabled: true, timeoutMinutes: 60 }, 2 * HOUR],
    ['idle sandbox-dev off for 2h', { enabled: false }, 2 * HOUR],
    ['idle sandbox-dev off for two hours', { enabled: false }, 2 * HOUR],
  ])('%s is temporary', (text, idleScaling, ms) => {
    const service = text.split(' ')[1] ?? '';
    expect(parseCommand(text)).toStrictEqual(changeOf('idle', service, { idleScaling }, ms));
  });

  it('reads a quoted service name', () => {
    expect(parseCommand('idle "analytics staging" off')).toStrictEqual(
      changeOf('idle', 'analytics staging', { idleScaling: { enabled: false } }),
    );
  });
});

describe('stop, start and wake: every accepted form', () => {
  it.each(['stop', 'start', 'wake'] as const)('%s SERVICE, plain and quoted', (verb) => {
    expect(parseCommand(`${verb} orders-staging`)).toStrictEqual(changeOf(verb, 'orders-staging', { power: verb }));
    expect(parseCommand(`${verb} "analytics staging"`)).toStrictEqual(
      changeOf(verb, 'analytics staging', { power: verb }),
    );
    expect(parseCommand(`${verb.toUpperCase()} orders-staging`)).toStrictEqual(
      changeOf(verb, 'orders-staging', { power: verb }),
    );
  });

  it.each(['stop', 'start'] as const)('%s SERVICE for DURATION', (verb) => {
    expect(parseCommand(`${verb} orders-staging for 4h`)).toStrictEqual(
      changeOf(verb, 'orders-staging', { power: verb }, 4 * HOUR),
    );
    expect(parseCommand(`${verb} "analytics staging" for two hours`)).toStrictEqual(
      changeOf(verb, 'analytics staging', { power: verb }, 2 * HOUR),
    );
    // A service called "for" is a service, not a duration.
    expect(parseCommand(`${verb} for`)).toStrictEqual(changeOf(verb, 'for', { power: verb }));
    expect(parseCommand(`${verb} for for 8h`)).toStrictEqual(changeOf(verb, 'for', { power: verb }, 8 * HOUR));
  });
});

describe('refusals: a sentence and the usage line', () => {
  it.each<[string, CommandName, string]>([
    ['scale', 'scale', 'Tell me the service, replicas or memory, and the value'],
    ['scale orders-prod', 'scale', 'Tell me the service, replicas or memory, and the value'],
    ['scale orders-prod cpu 4', 'scale', 'scale sets replicas or memory, not "cpu"'],
    ['scale orders-prod 6', 'scale', 'scale sets replicas or memory, not "6"'],
    ['scale orders-prod replicas', 'scale', 'Tell me how many replicas'],
    ['scale orders-prod memory', 'scale', 'Tell me the memory per replica in GB'],
    ['scale orders-prod replicas abc', 'scale', '"abc" is not'],
    ['scale orders-prod replicas -3', 'scale', '"-3" is not'],
    ['scale orders-prod replicas 3.5', 'scale', '"3.5" is not'],
    ['scale orders-prod replicas 2-', 'scale', '"2-" is not'],
    ['scale orders-prod replicas 2-6-8', 'scale', '"2-6-8" is not'],
    ['scale orders-prod memory lots', 'scale', 'Memory per replica is a number of GB'],
    ['scale orders-prod memory 16TB', 'scale', '"16TB" is not'],
    ['scale orders-prod replicas 6 for 30s', 'scale', 'is not a duration'],
    ['scale orders-prod replicas 6 for', 'scale', 'The for at the end is not followed by a duration'],
    ['scale orders-prod replicas 6 for soon', 'scale', '"soon" is not a duration'],
    ['idle', 'idle', 'Tell me the service and on or off'],
    ['idle orders-prod', 'idle', 'Tell me the service and on or off'],
    ['idle orders-prod maybe', 'idle', '"maybe" is neither on nor off'],
    ['idle orders-prod off after 5m', 'idle', 'so I don\'t know what to do with "after 5m"'],
    ['idle orders-prod on 15m', 'idle', 'so I don\'t know what to do with "15m"'],
    ['idle orders-prod on after soon', 'idle', 'After how long?'],
    ['idle orders-prod on after', 'idle', 'After how long?'],
    ['idle orders-prod on after 90 seconds', 'idle', 'After how long?'],
    ['idle orders-prod on for 30s', 'idle', 'is not a duration'],
    ['stop', 'stop', 'Tell me which service'],
    ['stop orders-prod staging', 'stop', 'stop takes one service, then optionally for DURATION'],
    ['start orders-staging now', 'start', 'start takes one service, then optionally for DURATION'],
    ['stop orders-prod for 30s', 'stop', 'is not a duration'],
    ['start orders-staging for 30 seconds', 'start', 'is not a duration'],
    ['wake', 'wake', 'Tell me which service'],
    ['wake "analytics staging" for 2h', 'wake', 'wake takes no for'],
    ['wake sandbox-dev now', 'wake', 'so I don\'t know what to do with "now"'],
  ])('%s', (text, name, said) => {
    const { message, usage } = refusal(text);
    expect(message).toContain(said);
    expectSentence(message);
    expect(usage).toBe(usageOf(name));
  });

  it('refuses a duration given in the middle, or twice', () => {
    for (const text of [
      'scale orders-prod replicas 6 for 2h for 4h',
      'stop orders-prod for 2h for 4h',
      'idle orders-prod on for 2h for 4h',
    ]) {
      const { message, usage } = refusal(text);
      expect(message, text).toContain('"for 2h" reads like a duration in the middle of the command');
      expect(message, text).toContain('Give one duration, once, at the end.');
      expect(usage).toBe(usageOf(text.split(' ')[0] as CommandName));
    }
    // The words after the middle for are not a value.
    const middle = refusal('scale orders-prod replicas for 2h 6');
    expectSentence(middle.message);
    expect(middle.usage).toBe(usageOf('scale'));
  });

  it('shows a memory example when the memory value is missing', () => {
    const { message } = refusal('scale orders-prod memory');
    expect(message).toMatch(/like this: scale \S+ memory \d/u);
  });

  it('tells the usage of each capacity command', () => {
    expect(usageOf('scale')).toBe('scale SERVICE replicas|memory VALUE [for DURATION]');
    expect(usageOf('idle')).toBe('idle SERVICE on [after DURATION]|off [for DURATION]');
    expect(usageOf('stop')).toBe('stop SERVICE [for DURATION]');
    expect(usageOf('start')).toBe('start SERVICE [for DURATION]');
    expect(usageOf('wake')).toBe('wake SERVICE');
  });
});

const demo = demoServices().map((record) => ServiceRecordSchema.parse(record));
const byName = (name: string) => demo.find((service) => service.name === name || service.id === name);

const CAPACITY_SPECS: readonly CommandSpec[] = COMMAND_CATALOGUE.filter((spec) =>
  (CAPACITY_COMMANDS as readonly string[]).includes(spec.name),
);
const ALL_EXAMPLES: Array<[string, string]> = CAPACITY_SPECS.flatMap((spec) =>
  [spec.example, ...(spec.more ?? [])].map((example): [string, string] => [spec.name, example]),
);

describe('help', () => {
  const text = mrkdwnTexts(helpBlocks('/clickhouse')).join('\n');

  it('has an entry for each new command', () => {
    expect(CAPACITY_SPECS.map((spec) => spec.name)).toStrictEqual([...CAPACITY_COMMANDS]);
  });

  it.each(CAPACITY_SPECS.map((spec): [string, CommandSpec] => [spec.name, spec]))(
    'lists %s with its usage and every example',
    (_, spec) => {
      expect(text).toContain(`\`/clickhouse ${spec.usage}\``);
      for (const example of [spec.example, ...(spec.more ?? [])]) {
        // As written, quotes and all: mrkdwn needs only &, < and > escaped.
        expect(text).toContain(`\`/clickhouse ${example}\``);
      }
    },
  );

  it('shows scale with replicas and memory, a count and a range, and idle both on and off', () => {
    const examples = ALL_EXAMPLES.map(([, example]) => example);
    expect(examples.some((e) => /^scale \S+ replicas \d+( |$)/u.test(e))).toBe(true);
    expect(examples.some((e) => /^scale \S+ replicas \d+-\d+/u.test(e))).toBe(true);
    expect(examples.some((e) => /^scale \S+ memory \d+-\d+/u.test(e))).toBe(true);
    expect(examples.some((e) => /^scale \S+ memory \d+$/u.test(e))).toBe(true);
    expect(examples.some((e) => /^idle \S+ on/u.test(e))).toBe(true);
    expect(examples.some((e) => /^idle \S+ off/u.test(e))).toBe(true);
  });
});

describe('every capacity example works as written in the demo organization', () => {
  it.each(ALL_EXAMPLES)('%s: %s', (name, example) => {
    const command = parseCommand(example);
    if (command.kind !== 'change') throw new Error(`${example} read as ${JSON.stringify(command)}`);
    expect(command.verb).toBe(name);
    const service = byName(command.service);
    expect(service, command.service).toBeDefined();
    if (service === undefined) return;
    const plan = planChange(service, command.intent);
    expect(plan.ok ? [] : plan.problems).toStrictEqual([]);
    if (plan.ok) expect(plan.plan.operations?.length).toBeGreaterThan(0);
  });
});
