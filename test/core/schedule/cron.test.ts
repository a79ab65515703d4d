/**
 * Cron expressions of scheduled summaries: 5 fields, or 6 with seconds first, read in an IANA
 * time zone, with messages a person can act on; and which missed run is posted when a bot starts.
 */
import { describe, expect, it } from 'vitest';
import { checkCron, isTimeZone, missedRun } from '../../../src/core/schedule/cron.js';

const at = (iso: string) => new Date(iso);
const iso = (dates: Date[]) => dates.map((d) => d.toISOString());
const ms = (value: string) => Date.parse(value);

function nextRuns(expression: string, timeZone: string, from: string): string[] {
  const check = checkCron(expression, timeZone, at(from));
  if (!check.ok) throw new Error(`expected ${expression} in ${timeZone} to be valid, got: ${check.message}`);
  return iso(check.nextRuns);
}

function problem(expression: string, timeZone = 'UTC'): string {
  const check = checkCron(expression, timeZone, at('2025-01-15T12:00:00Z'));
  if (check.ok)
    throw new Error(`expected ${expression} in ${timeZone} to be refused, got runs ${iso(check.nextRuns).join(', ')}`);
  return check.message;
}

describe('checkCron: next runs', () => {
  it('reads 5 fields as minute hour day month weekday, at the start of the minute', () => {
    // Wednesday 15 January 2025, 12:00 UTC.
    expect(nextRuns('30 12 * * *', 'UTC', '2025-01-15T12:00:00Z')).toStrictEqual([
      '2025-01-15T12:30:00.000Z',
      '2025-01-16T12:30:00.000Z',
      '2025-01-17T12:30:00.000Z',
    ]);
    expect(nextRuns('*/15 * * * *', 'UTC', '2025-01-15T12:07:00Z')).toStrictEqual([
      '2025-01-15T12:15:00.000Z',
      '2025-01-15T12:30:00.000Z',
      '2025-01-15T12:45:00.000Z',
    ]);
  });

  it('reads 6 fields with seconds first, and never returns the current instant itself', () => {
    expect(nextRuns('*/2 * * * * *', 'UTC', '2025-01-15T12:00:00.000Z')).toStrictEqual([
      '2025-01-15T12:00:02.000Z',
      '2025-01-15T12:00:04.000Z',
      '2025-01-15T12:00:06.000Z',
    ]);
    expect(nextRuns('*/2 * * * * *', 'UTC', '2025-01-15T12:00:00.500Z')[0]).toBe('2025-01-15T12:00:02.000Z');
    expect(nextRuns('45 0 9 * * *', 'UTC', '2025-01-15T12:00:00Z')).toStrictEqual([
      '2025-01-16T09:00:45.000Z',
      '2025-01-17T09:00:45.000Z',
      '2025-01-18T09:00:45.000Z',
    ]);
  });

  it('runs weekdays at 9:00 New York time: 14:00Z in winter, 13:00Z in summer', () => {
    // From Friday 17 January 2025: Friday, then Monday and Tuesday (the weekend is skipped).
    expect(nextRuns('0 9 * * 1-5', 'America/New_York', '2025-01-17T12:00:00Z')).toStrictEqual([
      '2025-01-17T14:00:00.000Z',
      '2025-01-20T14:00:00.000Z',
      '2025-01-21T14:00:00.000Z',
    ]);
    expect(nextRuns('0 9 * * 1-5', 'America/New_York', '2025-07-15T12:00:00Z')).toStrictEqual([
      '2025-07-15T13:00:00.000Z',
      '2025-07-16T13:00:00.000Z',
      '2025-07-17T13:00:00.000Z',
    ]);
  });

  it('follows a daylight saving change between two runs (New York moved its clocks on 9 March 2025)', () => {
    expect(nextRuns('0 9 * * 1-5', 'America/New_York', '2025-03-07T12:00:00Z')).toStrictEqual([
      '2025-03-07T14:00:00.000Z',
      '2025-03-10T13:00:00.000Z',
      '2025-03-11T13:00:00.000Z',
    ]);
  });

  it('runs at 9:00 Berlin time: 08:00Z in winter, 07:00Z in summer', () => {
    expect(nextRuns('0 9 * * 1-5', 'Europe/Berlin', '2025-01-15T12:00:00Z')).toStrictEqual([
      '2025-01-16T08:00:00.000Z',
      '2025-01-17T08:00:00.000Z',
      '2025-01-20T08:00:00.000Z',
    ]);
    expect(nextRuns('0 9 * * *', 'Europe/Berlin', '2025-06-01T00:00:00Z')[0]).toBe('2025-06-01T07:00:00.000Z');
  });

  it('gives the same instants for the same wall-clock time in UTC and in a zone at UTC+0', () => {
    expect(nextRuns('0 9 * * *', 'UTC', '2025-01-15T00:00:00Z')).toStrictEqual(
      nextRuns('0 9 * * *', 'Europe/London', '2025-01-15T00:00:00Z'),
    );
  });

  it('accepts nicknames such as @daily', () => {
    expect(nextRuns('@daily', 'UTC', '2025-01-15T12:00:00Z')[0]).toBe('2025-01-16T00:00:00.000Z');
  });
});

describe('checkCron: refusals with a clear message', () => {
  it('names a field whose value is out of range, and shows how to write a cron expression', () => {
    const hour = problem('0 25 * * *');
    expect(hour).toContain('"0 25 * * *" is not a cron expression');
    expect(hour).toMatch(/hour: 25/);
    expect(hour).toContain('5 fields (minute hour day month weekday)');
    expect(hour).toContain('6 with seconds first');
    expect(problem('61 * * * *')).toMatch(/minute: 61/);
    expect(problem('0 9 * 13 *')).toContain('is not a cron expression');
    expect(problem('0 9 * * 8')).toMatch(/dayOfWeek: 8/);
  });

  it('refuses words, illegal characters and a zero step', () => {
    expect(problem('hello world * * *')).toContain('is not a cron expression');
    expect(problem('0 9 * * mon-fry')).toContain('is not a cron expression');
    expect(problem('*/0 * * * *')).toContain('is not a cron expression');
  });

  it('refuses a wrong number of fields (4 or 7), saying that 5 or 6 are needed and nothing that contradicts it', () => {
    for (const expression of ['* * * *', '0 9 * * 1-5 2025', '* * * * * * *', '9am']) {
      const message = problem(expression);
      expect(message).toContain(`"${expression}"`);
      expect(message).toContain('5 fields');
      expect(message).toContain('6 with seconds');
      // croner's own wording accepts seven parts, which this bot does not.
      expect(message).not.toMatch(/seven/i);
    }
  });

  it('writes sentences without doubled punctuation', () => {
    for (const expression of ['0 25 * * *', '* * * *', '*/0 * * * *', 'hello'])
      expect(problem(expression)).not.toContain('..');
  });

  it('refuses an expression that never fires', () => {
    expect(problem('0 0 30 2 *')).toBe('"0 0 30 2 *" never fires.');
  });

  it('refuses an unknown time zone before looking at the expression, and suggests IANA names', () => {
    for (const zone of ['Mars/Olympus', 'UTC+2', 'New York', '']) {
      const message = problem('0 9 * * 1-5', zone);
      expect(message).toBe(`"${zone}" is not a time zone. Use an IANA name such as Europe/Berlin or America/New_York.`);
    }
    expect(problem('0 99 * * *', 'Not/AZone')).toContain('is not a time zone');
  });

  it('knows time zones as Intl does', () => {
    expect(['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Etc/GMT+5'].every(isTimeZone)).toBe(true);
    expect(['Mars/Olympus', 'GMT+25', ''].some(isTimeZone)).toBe(false);
  });
});

describe('missedRun: the run to post when a bot starts after every replica was down', () => {
  const LONG_AGO = ms('2024-01-01T00:00:00Z');

  it('returns the latest fire time when it was never claimed and is less than one period old', () => {
    expect(missedRun('0 * * * *', 'UTC', at('2025-01-15T12:30:00Z'), undefined, LONG_AGO)?.toISOString()).toBe(
      '2025-01-15T12:00:00.000Z',
    );
    expect(missedRun('0 * * * *', 'UTC', at('2025-01-15T12:59:59Z'), undefined, LONG_AGO)?.toISOString()).toBe(
      '2025-01-15T12:00:00.000Z',
    );
    expect(missedRun('* * * * *', 'UTC', at('2025-01-15T12:00:30Z'), undefined, LONG_AGO)?.toISOString()).toBe(
      '2025-01-15T12:00:00.000Z',
    );
    expect(missedRun('*/2 * * * * *', 'UTC', at('2025-01-15T12:00:03.500Z'), undefined, LONG_AGO)?.toISOString()).toBe(
      '2025-01-15T12:00:02.000Z',
    );
  });

  it('reads the fire time in the schedule time zone', () => {
    expect(
      missedRun('0 9 * * *', 'Europe/Berlin', at('2025-01-15T08:30:00Z'), undefined, LONG_AGO)?.toISOString(),
    ).toBe('2025-01-15T08:00:00.000Z');
    expect(
      missedRun('0 9 * * *', 'America/New_York', at('2025-01-15T14:30:00Z'), undefined, LONG_AGO)?.toISOString(),
    ).toBe('2025-01-15T14:00:00.000Z');
    // 08:30Z is 03:30 in New York: the 9:00 run of the day before is the latest.
    expect(
      missedRun('0 9 * * *', 'America/New_York', at('2025-01-15T08:30:00Z'), undefined, LONG_AGO)?.toISOString(),
    ).toBe('2025-01-14T14:00:00.000Z');
  });

  it('returns only the latest missed run, never one more than a period old', () => {
    // Down from 10:30 to 12:30: the 11:00 run is older than an hour and is not posted; 12:00 is.
    const lastClaimed = ms('2025-01-15T10:00:00Z');
    expect(missedRun('0 * * * *', 'UTC', at('2025-01-15T12:30:00Z'), lastClaimed, LONG_AGO)?.toISOString()).toBe(
      '2025-01-15T12:00:00.000Z',
    );
  });

  it('does not treat a fire time that is exactly now as missed: the live job runs it', () => {
    expect(
      missedRun('0 * * * *', 'UTC', at('2025-01-15T13:00:00Z'), ms('2025-01-15T11:00:00Z'), LONG_AGO),
    ).toBeUndefined();
  });

  it('does not return a weekday run on the weekend after it: Friday 9:00 is more than a day old on Sunday', () => {
    // The schedule runs every weekday; the bot was down over the weekend and starts on Sunday noon.
    // Friday's run is 51 hours old, more than the schedule's one-day period, so it is not posted.
    const sunday = at('2025-01-19T12:00:00Z');
    const thursdayRun = ms('2025-01-16T09:00:00Z');
    expect(missedRun('0 9 * * 1-5', 'UTC', sunday, thursdayRun, LONG_AGO)).toBeUndefined();
  });

  it('does not return a run already claimed (lastRun at or after it)', () => {
    const now = at('2025-01-15T12:30:00Z');
    expect(missedRun('0 * * * *', 'UTC', now, ms('2025-01-15T12:00:00Z'), LONG_AGO)).toBeUndefined();
    expect(missedRun('0 * * * *', 'UTC', now, ms('2025-01-15T12:00:00.001Z'), LONG_AGO)).toBeUndefined();
    expect(
      missedRun('*/2 * * * * *', 'UTC', at('2025-01-15T12:00:03.500Z'), ms('2025-01-15T12:00:02Z'), LONG_AGO),
    ).toBeUndefined();
  });

  it('does not return a run from before the schedule was created', () => {
    const now = at('2025-01-15T12:30:00Z');
    expect(missedRun('0 * * * *', 'UTC', now, undefined, ms('2025-01-15T12:10:00Z'))).toBeUndefined();
    expect(missedRun('0 * * * *', 'UTC', now, undefined, ms('2025-01-15T12:00:00Z'))).toBeUndefined();
    expect(missedRun('0 * * * *', 'UTC', now, undefined, ms('2025-01-15T11:59:59Z'))?.toISOString()).toBe(
      '2025-01-15T12:00:00.000Z',
    );
  });
});
