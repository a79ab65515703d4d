/**
 * `… for DURATION` in words (issue 22, point 7): "ip add SVC 10.0.0.1 for 2 hours" was read as the
 * description "for 2 hours" and granted access for good. Whatever follows `for` and looks like a
 * duration is read as one or refused with the accepted forms, never kept as a description.
 */
import { describe, expect, it } from 'vitest';
import { parseCommand, type Command } from '../../../src/core/command/parse.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const IP = '10.0.0.1';

function temporaryIpAdd(durationMs: number, description?: string): Command {
  const entry = description === undefined ? { source: IP } : { source: IP, description };
  return { kind: 'change', service: 'svc', verb: 'ip add', intent: { ipAdd: [entry] }, durationMs };
}

function refusalOf(text: string): string {
  const command = parseCommand(text);
  if (command.kind !== 'invalid') throw new Error(`expected a refusal of ${text}, got ${JSON.stringify(command)}`);
  return command.message;
}

describe('ip add … for DURATION in words', () => {
  it.each([
    ['2 hours', 2 * HOUR],
    ['2hrs', 2 * HOUR],
    ['2 hrs', 2 * HOUR],
    ['2h', 2 * HOUR],
    ['2 H', 2 * HOUR],
    ['90 minutes', 90 * MINUTE],
    ['90mins', 90 * MINUTE],
    ['1 day', DAY],
    ['3d', 3 * DAY],
    ['two hours', 2 * HOUR],
    ['an hour', HOUR],
    ['a day', DAY],
    ['twenty-four hours', DAY],
    ['forty five minutes', 45 * MINUTE],
    ['1h 30m', 90 * MINUTE],
    ['1h30m', 90 * MINUTE],
    ['1 hour and 30 minutes', 90 * MINUTE],
    ['1.5 hours', 90 * MINUTE],
    ['1 week', 7 * DAY],
  ])('reads "for %s" as the duration', (words, ms) => {
    expect(parseCommand(`ip add svc ${IP} for ${words}`)).toStrictEqual(temporaryIpAdd(ms));
  });

  it('keeps the description before for', () => {
    expect(parseCommand(`ip add svc ${IP} office VPN for 2 hours`)).toStrictEqual(
      temporaryIpAdd(2 * HOUR, 'office VPN'),
    );
    expect(parseCommand(`ip add svc ${IP} access for partners for 2 hours`)).toStrictEqual(
      temporaryIpAdd(2 * HOUR, 'access for partners'),
    );
  });

  it.each([
    '2 fortnights',
    'a while',
    '30 seconds',
    '2 months',
    'the day',
    'the weekend',
    'tomorrow',
    '2',
    'two',
    '0.5 minutes',
    '2 hours please',
    '2 hours office VPN',
  ])('refuses "for %s" with the accepted forms instead of taking it as the description', (words) => {
    const message = refusalOf(`ip add svc ${IP} for ${words}`);
    expect(message).toContain('not a duration');
    expect(message).toContain('for 30m, for 2h, for 3d');
    expect(message).toContain('put the description in quotes');
  });

  it('refuses a duration in the middle, before the description', () => {
    const message = refusalOf(`ip add svc ${IP} for 2 hours for partners`);
    expect(message).toContain('for 30m, for 2h, for 3d');
  });

  it('refuses two durations', () => {
    expect(refusalOf(`ip add svc ${IP} for 2 hours for 3 hours`)).toContain('Give one duration');
  });

  it('refuses a for with nothing after it', () => {
    expect(refusalOf(`ip add svc ${IP} office for`)).toContain('The for at the end is not followed by a duration.');
  });

  it('refuses a duration under a minute', () => {
    expect(refusalOf(`ip add svc ${IP} for 0 minutes`)).toContain('at least 1 minute');
  });

  it('still takes descriptions with for that say nothing about time, and quoted ones as written', () => {
    expect(parseCommand(`ip add svc ${IP} laptop for Bob's team`)).toMatchObject({
      intent: { ipAdd: [{ source: IP, description: "laptop for Bob's team" }] },
    });
    const quoted = parseCommand(`ip add svc ${IP} "for 2 hours"`);
    expect(quoted).toMatchObject({ intent: { ipAdd: [{ source: IP, description: 'for 2 hours' }] } });
    expect(quoted).not.toHaveProperty('durationMs');
  });

  it('reads a service or source called "for" as such', () => {
    expect(parseCommand(`ip add for ${IP} for 2h`)).toMatchObject({ service: 'for', durationMs: 2 * HOUR });
  });
});

describe('endpoint … mysql on for DURATION in words', () => {
  it.each([
    ['2 hours', 2 * HOUR],
    ['90 minutes', 90 * MINUTE],
    ['two hours', 2 * HOUR],
    ['1 day', DAY],
  ])('reads "for %s" as the duration', (words, ms) => {
    expect(parseCommand(`endpoint svc mysql on for ${words}`)).toStrictEqual({
      kind: 'change',
      service: 'svc',
      verb: 'endpoint',
      intent: { mysqlEndpoint: true },
      durationMs: ms,
    });
  });

  it.each(['a while', '2 fortnights', '2'])('refuses "for %s" with the accepted forms', (words) => {
    expect(refusalOf(`endpoint svc mysql on for ${words}`)).toContain('for 30m, for 2h, for 3d');
  });
});
