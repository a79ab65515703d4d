/**
 * `at TIME`: every form, read in a zone, across daylight saving time transitions; and every
 * mistake refused in a sentence that lists the accepted forms.
 */
import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../../src/core/command/parse.js';
import { stringContaining } from '../../support/matchers.js';
import { localLabel, readWhen, resolveWhen, WHEN_FORMS, type WhenSpec } from '../../../src/core/command/when.js';

/** Saturday 2026-03-28 12:00 UTC: the day before Europe's clocks go forward. */
const NOW = Date.UTC(2026, 2, 28, 12, 0);

function spec(text: string): WhenSpec {
  const reading = readWhen(text.split(' '));
  if (reading.kind !== 'when') throw new Error(`${text}: ${JSON.stringify(reading)}`);
  return reading.spec;
}

function resolved(text: string, zone = 'UTC', now = NOW): string {
  const result = resolveWhen(spec(text), now, zone);
  if (!result.ok) throw new Error(result.message);
  return `${new Date(result.at).toISOString()} ${localLabel(result.at, result.zone)}`;
}

function refusal(text: string, zone = 'UTC', now = NOW): string {
  const reading = readWhen(text.split(' '));
  if (reading.kind === 'unreadable') return reading.message;
  if (reading.kind === 'other') throw new Error(`${text} was not read as a time`);
  const result = resolveWhen(reading.spec, now, zone);
  if (result.ok) throw new Error(`${text} was accepted`);
  return result.message;
}

describe('at TIME: the forms', () => {
  it('a full date and time, in the zone given or the default', () => {
    expect(resolved('2026-05-01 09:00')).toBe('2026-05-01T09:00:00.000Z 2026-05-01 09:00 UTC');
    expect(resolved('2026-04-01 09:00 tz:Europe/Berlin')).toBe(
      '2026-04-01T07:00:00.000Z 2026-04-01 09:00 Europe/Berlin',
    );
    expect(resolved('2026-04-01 09:00', 'America/New_York')).toBe(
      '2026-04-01T13:00:00.000Z 2026-04-01 09:00 America/New_York',
    );
    // tz: wins over the channel's or the requester's zone.
    expect(resolved('2026-04-01 09:00 tz:Asia/Tokyo', 'Europe/Berlin')).toContain('2026-04-01 09:00 Asia/Tokyo');
  });

  it('a time alone is its next occurrence: today if still ahead, else tomorrow', () => {
    expect(resolved('13:30')).toBe('2026-03-28T13:30:00.000Z 2026-03-28 13:30 UTC');
    expect(resolved('09:00')).toBe('2026-03-29T09:00:00.000Z 2026-03-29 09:00 UTC');
    // Exactly now is not ahead: tomorrow.
    expect(resolved('12:00')).toBe('2026-03-29T12:00:00.000Z 2026-03-29 12:00 UTC');
    // "Today" is the zone's today: 12:00 UTC is already 21:00 on Saturday in Tokyo.
    expect(resolved('08:00', 'Asia/Tokyo')).toBe('2026-03-28T23:00:00.000Z 2026-03-29 08:00 Asia/Tokyo');
  });

  it('a weekday is its next one (a week ahead when it is today and the time has passed); names may be short', () => {
    expect(resolved('monday 06:00')).toBe('2026-03-30T06:00:00.000Z 2026-03-30 06:00 UTC');
    expect(resolved('Sat 13:00')).toBe('2026-03-28T13:00:00.000Z 2026-03-28 13:00 UTC');
    expect(resolved('saturday 11:00')).toBe('2026-04-04T11:00:00.000Z 2026-04-04 11:00 UTC');
    expect(resolved('tuesday 09:00 tz:America/New_York')).toBe(
      '2026-03-31T13:00:00.000Z 2026-03-31 09:00 America/New_York',
    );
  });
});

describe('at TIME across daylight saving time', () => {
  it('the same wall time on either side of a transition keeps its local meaning', () => {
    // Berlin: UTC+1 on Saturday, UTC+2 from Sunday 2026-03-29 03:00.
    expect(resolved('2026-03-28 18:00 tz:Europe/Berlin')).toContain('2026-03-28T17:00:00.000Z');
    expect(resolved('2026-03-29 09:00 tz:Europe/Berlin')).toContain('2026-03-29T07:00:00.000Z');
    expect(resolved('monday 09:00', 'Europe/Berlin')).toContain('2026-03-30T07:00:00.000Z');
  });

  it('a time in the skipped hour (clocks go forward) is refused in a sentence', () => {
    expect(refusal('2026-03-29 02:30 tz:Europe/Berlin')).toBe(
      '2026-03-29 02:30 Europe/Berlin does not exist: the clocks skip that hour for daylight saving time. Pick a time outside the skipped hour.',
    );
    // New York's gap (2026-03-08 02:00-03:00), seen from the week before.
    expect(refusal('sunday 02:15', 'America/New_York', Date.UTC(2026, 2, 5))).toContain('does not exist');
    // A skipped hour already behind us today: the next day's time is the next occurrence.
    expect(resolved('02:30', 'Europe/Berlin', Date.UTC(2026, 2, 29, 10, 0))).toBe(
      '2026-03-30T00:30:00.000Z 2026-03-30 02:30 Europe/Berlin',
    );
  });

  it('a time in the repeated hour (clocks go back) is its first occurrence, still on summer time', () => {
    const october = Date.UTC(2026, 9, 20);
    // Berlin, 2026-10-25: 02:30 happens at 00:30 UTC (CEST) and again at 01:30 UTC (CET).
    expect(resolved('2026-10-25 02:30 tz:Europe/Berlin', 'UTC', october)).toBe(
      '2026-10-25T00:30:00.000Z 2026-10-25 02:30 Europe/Berlin',
    );
    expect(resolved('2026-11-01 01:30 tz:America/New_York', 'UTC', october)).toBe(
      '2026-11-01T05:30:00.000Z 2026-11-01 01:30 America/New_York',
    );
  });
});

describe('at TIME: mistakes are refused with the accepted forms', () => {
  it.each([
    ['2026-02-30 09:00', '"2026-02-30" is not a date on the calendar.'],
    ['2026-13-01 09:00', '"2026-13-01" is not a date on the calendar.'],
    ['25:00', '"25:00" is not a time of day (00:00 to 23:59).'],
    ['09:60', '"09:60" is not a time of day (00:00 to 23:59).'],
    ['monday', '"monday" has no time of day.'],
    ['monday 9am', '"9am" is not a time of day.'],
    ['9am', '"9am" is not a date or a time I read.'],
    ['tomorrow 09:00', '"tomorrow" is not a date or a time I read.'],
    ['09:00 tz:Mars/Olympus', '"tz:Mars/Olympus" is not a time zone I know: use an IANA name like tz:Europe/Berlin.'],
  ])('%s', (text, sentence) => {
    expect(refusal(text)).toBe(`${sentence} ${WHEN_FORMS}.`);
  });

  it('a time less than a minute away is refused: it could not be approved before it', () => {
    expect(refusal('12:00', 'UTC', Date.UTC(2026, 2, 28, 11, 59, 30))).toBe(
      '2026-03-28 12:00 UTC is less than a minute away, too soon to be approved before it. Leave out at to have it applied as soon as it is approved, or give a later time.',
    );
    expect(resolved('12:00', 'UTC', Date.UTC(2026, 2, 28, 11, 59))).toContain('2026-03-28T12:00:00.000Z');
  });

  it('a full date in the past, or too far ahead, is refused', () => {
    expect(refusal('2026-03-01 09:00')).toBe(
      `2026-03-01 09:00 UTC has passed. Give a time in the future. ${WHEN_FORMS}.`,
    );
    expect(refusal('2026-03-28 11:59')).toContain('has passed');
    expect(refusal('2026-12-01 09:00')).toBe(
      '2026-12-01 09:00 UTC is more than 90 days away: schedule it closer to the time.',
    );
  });

  it('words after at that are not about time are not a time at all', () => {
    expect(readWhen(['office'])).toEqual({ kind: 'other' });
    expect(readWhen([])).toMatchObject({ kind: 'unreadable' });
  });
});

describe('at TIME in change commands', () => {
  it('any change takes it, with for, because and ticket in any order', () => {
    expect(parseCommand('ip add orders-prod 203.0.113.7 vendor at tuesday 09:00 for 3h')).toEqual({
      kind: 'change',
      verb: 'ip add',
      service: 'orders-prod',
      intent: { ipAdd: [{ source: '203.0.113.7', description: 'vendor' }] },
      durationMs: 3 * 3_600_000,
      when: { day: { kind: 'weekday', weekday: 2 }, hour: 9, minute: 0, text: 'tuesday 09:00' },
    });
    expect(
      parseCommand('scale orders-prod replicas 5 because "peak" at 2026-12-01 09:00 tz:Europe/Berlin ticket OPS-1'),
    ).toMatchObject({
      kind: 'change',
      intent: { replicas: { min: 5, max: 5 } },
      reason: 'peak',
      ticket: 'OPS-1',
      when: { day: { kind: 'date', year: 2026, month: 12, day: 1 }, zone: 'Europe/Berlin' },
    });
    expect(parseCommand('stop orders-prod at 22:00')).toMatchObject({ kind: 'change', when: { hour: 22 } });
    expect(parseCommand('rename orders-prod orders-next at monday 06:00')).toMatchObject({
      kind: 'change',
      intent: { name: 'orders-next' },
      when: { day: { kind: 'weekday', weekday: 1 } },
    });
  });

  it('an at in a description stays in it; a quoted one always does', () => {
    expect(parseCommand('ip add orders-prod 203.0.113.7 desk at office')).toMatchObject({
      intent: { ipAdd: [{ description: 'desk at office' }] },
    });
    const quoted = parseCommand('ip add orders-prod 203.0.113.7 "meet at 9" at 09:00');
    expect(quoted).toMatchObject({ intent: { ipAdd: [{ description: 'meet at 9' }] }, when: { hour: 9 } });
  });

  it('refuses a time it cannot read, two times, and a time on a command that changes nothing', () => {
    expect(parseCommand('stop orders-prod at 25:00')).toMatchObject({
      kind: 'invalid',
      message: stringContaining(WHEN_FORMS),
    });
    expect(parseCommand('stop orders-prod at 09:00 at 10:00')).toMatchObject({
      kind: 'invalid',
      message: 'Give one time: at appears twice ("09:00" and "10:00").',
    });
    expect(parseCommand('show orders-prod at 09:00')).toMatchObject({ kind: 'invalid' });
    expect(parseCommand('history orders-prod at 09:00')).toMatchObject({
      kind: 'invalid',
      message: stringContaining('history does not change anything, so it takes no time'),
    });
  });
});

describe('at TIME: words after the time that change its meaning are refused, not kept as a description', () => {
  // An ip description takes any words: `at 21:00 UTC` used to apply at 21:00 in the channel's zone
  // with "UTC" as the description, `at 09:00 pm` at nine in the morning, `at 10:00 monday` at the
  // next 10:00 whatever the day.
  it.each([
    ['at 09:00 pm', '"pm"'],
    ['at 9:30 AM', '"AM"'],
    ['at 21:00 UTC', '"UTC"'],
    ['at 21:00 CET', '"CET"'],
    ['at 21:00 Europe/Berlin', '"Europe/Berlin"'],
    ['at 10:00 +0200', '"+0200"'],
    ['at 10:00 tomorrow', '"tomorrow"'],
    ['at 10:00 today', '"today"'],
    ['at 10:00 monday', '"monday"'],
    ['at 10:00 2026-04-01', '"2026-04-01"'],
    ['at monday 06:00 pm', '"pm"'],
    ['at 10:00 tz:Europe/Berlin tz:UTC', '"tz:UTC"'],
    ['at 2026-04-01 10:00 tz:UTC EST', '"EST"'],
  ])('ip add orders-prod 203.0.113.7 %s', (words, quoted) => {
    const command = parseCommand(`ip add orders-prod 203.0.113.7 ${words}`);
    expect(command).toMatchObject({ kind: 'invalid', message: stringContaining(quoted) });
    expect(command).toMatchObject({ message: stringContaining(WHEN_FORMS) });
  });

  it('a description, for, because and ticket after the time are still fine', () => {
    expect(parseCommand('ip add orders-prod 203.0.113.7 at 10:00 vendor laptop')).toMatchObject({
      kind: 'change',
      intent: { ipAdd: [{ source: '203.0.113.7', description: 'vendor laptop' }] },
      when: { hour: 10, text: '10:00' },
    });
    expect(parseCommand('ip add orders-prod 203.0.113.7 at 10:00 tz:UTC for 1h because "x"')).toMatchObject({
      kind: 'change',
      durationMs: 3_600_000,
      when: { zone: 'UTC' },
    });
  });
});

describe('at TIME written in words is refused, not kept as a description (and applied at once)', () => {
  it.each([
    'at nine',
    'at half past nine',
    'at next monday 06:00',
    'at dec 1 09:00',
    'at December 1',
    'at tonight',
    'at midday',
  ])('ip add orders-prod 203.0.113.7 %s', (words) => {
    expect(parseCommand(`ip add orders-prod 203.0.113.7 ${words}`)).toMatchObject({
      kind: 'invalid',
      message: stringContaining(WHEN_FORMS),
    });
  });

  it('other words after at stay a description', () => {
    expect(parseCommand('ip add orders-prod 203.0.113.7 desk at office')).toMatchObject({
      kind: 'change',
      intent: { ipAdd: [{ description: 'desk at office' }] },
    });
  });
});

describe('a tz: away from its time is refused, not kept as a description while the time is read in another zone', () => {
  it.each(['tz:UTC at 10:00', 'at 10:00 because "x" tz:UTC', 'at 10:00 vendor TZ:Europe/Berlin'])(
    'ip add orders-prod 203.0.113.7 %s',
    (words) => {
      expect(parseCommand(`ip add orders-prod 203.0.113.7 ${words}`)).toMatchObject({
        kind: 'invalid',
        message: stringContaining('right after the time'),
      });
    },
  );
});
