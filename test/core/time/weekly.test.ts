/** Days and times of day as people write them, and weekly times in a zone read as UTC (issue 38). */
import { describe, expect, it } from 'vitest';
import { daysText, readClock, readClockRange, readDay, readDays } from '../../../src/core/time/weekly.js';
import { entryInUtc, overlapOf } from '../../../src/core/change/kinds/schedule-entry.js';
import { windowInUtc } from '../../../src/core/change/kinds/upgrade-window.js';

const WINTER = Date.parse('2026-01-15T12:00:00Z');
const SUMMER = Date.parse('2026-07-15T12:00:00Z');

describe('days', () => {
  it.each([
    ['mon-fri', [1, 2, 3, 4, 5]],
    ['sat,sun', [0, 6]],
    ['daily', [0, 1, 2, 3, 4, 5, 6]],
    ['weekdays', [1, 2, 3, 4, 5]],
    ['weekends', [0, 6]],
    ['mon,wed,fri', [1, 3, 5]],
    ['Fri-Mon', [0, 1, 5, 6]],
    ['tuesday,thu', [2, 4]],
    ['mon,mon-tue', [1, 2]],
  ])('%s', (text, days) => expect(readDays(text)).toEqual({ days }));

  it.each(['funday', 'mon-', 'mon-tue-wed', ',', 'mon,,tue'])('refuses %s naming the forms', (text) => {
    const read = readDays(text);
    expect('problem' in read && read.problem).toContain('mon-fri, sat,sun, daily');
  });

  it('reads one weekday word and writes days back as people read them', () => {
    expect(readDay('SUN')).toBe(0);
    expect(readDay('saturday')).toBe(6);
    expect(readDay('sonntag')).toBeUndefined();
    expect(daysText([5, 1, 2, 3, 4])).toBe('mon–fri');
    expect(daysText([0, 6])).toBe('sat,sun');
    expect(daysText([0, 1, 2, 3, 4, 5, 6])).toBe('daily');
    expect(daysText([1, 3])).toBe('mon,wed');
  });
});

describe('times of day', () => {
  it('reads HH:MM, 24:00 only as an end, and ranges', () => {
    expect(readClock('09:30')).toBe(570);
    expect(readClock('9:05')).toBe(545);
    expect(readClock('24:00')).toBeUndefined();
    expect(readClock('24:00', true)).toBe(1440);
    expect(readClock('24:30', true)).toBeUndefined();
    expect(readClock('25:00')).toBeUndefined();
    expect(readClock('9')).toBeUndefined();
    expect(readClockRange('9:00-18:00')).toEqual({ from: '09:00', to: '18:00' });
    expect(readClockRange('00:00-24:00')).toEqual({ from: '00:00', to: '24:00' });
    expect(readClockRange('24:00-06:00')).toBeUndefined();
    expect(readClockRange('09:00')).toBeUndefined();
    expect(readClockRange('09:00-10:00-11:00')).toBeUndefined();
  });
});

describe('a schedule entry in UTC', () => {
  const entry = (days: number[], from: string, to: string, zone: string) => ({ name: 'e', days, from, to, zone });

  it('moves the hours by the offset, and the days when the start crosses midnight', () => {
    expect(entryInUtc(entry([1, 2, 3, 4, 5], '08:00', '10:00', 'Asia/Tokyo'), WINTER).utc).toEqual({
      weekdays: [0, 1, 2, 3, 4],
      startHourUtc: 23,
      endHourUtc: 1,
    });
    expect(entryInUtc(entry([6], '20:00', '24:00', 'UTC'), WINTER).utc).toEqual({
      weekdays: [6],
      startHourUtc: 20,
      endHourUtc: 24,
    });
    expect(entryInUtc(entry([0], '20:00', '23:00', 'America/New_York'), WINTER).utc).toEqual({
      weekdays: [1],
      startHourUtc: 1,
      endHourUtc: 4,
    });
  });

  it('notes the other season where the clocks move, in winter and in summer', () => {
    expect(entryInUtc(entry([1], '09:00', '17:00', 'Europe/Berlin'), WINTER).note).toContain(
      'runs 10:00–18:00 local time',
    );
    expect(entryInUtc(entry([1], '09:00', '17:00', 'Europe/Berlin'), SUMMER).note).toContain(
      'runs 08:00–16:00 local time',
    );
    expect(entryInUtc(entry([1], '09:00', '17:00', 'Asia/Tokyo'), WINTER).note).toBeUndefined();
  });

  it('refuses times off the whole UTC hour with the nearest, and a day that is no entry', () => {
    expect(entryInUtc(entry([1], '09:00', '17:00', 'Asia/Kolkata'), WINTER).problem).toContain(
      'The nearest that are: 08:30 or 09:30 Asia/Kolkata',
    );
    expect(entryInUtc(entry([1], '09:00', '09:00', 'UTC'), WINTER).problem).toContain('another time of day');
    expect(entryInUtc(entry([1], '00:00', '24:00', 'Europe/Berlin'), WINTER).problem).toContain(
      'which one entry cannot hold',
    );
  });

  it('finds where two entries overlap, past midnight too', () => {
    const e = (weekdays: number[], startHourUtc: number, endHourUtc: number) => ({
      name: 'x',
      weekdays,
      startHourUtc,
      endHourUtc,
    });
    expect(overlapOf(e([1], 8, 18), e([1], 17, 20))).toBe('mon 17:00 UTC');
    expect(overlapOf(e([1], 8, 18), e([1], 18, 20))).toBeUndefined();
    expect(overlapOf(e([0], 22, 2), e([1], 1, 3))).toBe('mon 01:00 UTC');
    expect(overlapOf(e([6], 22, 2), e([0], 0, 1))).toBe('sun 00:00 UTC');
    expect(overlapOf(e([1, 2], 0, 24), e([3], 0, 24))).toBeUndefined();
  });
});

describe('an upgrade window in UTC', () => {
  it('takes a local start that is 0, 6, 12 or 18 UTC, and names the nearest local ones otherwise', () => {
    expect(windowInUtc({ weekday: 0, time: '09:00' }, 'Asia/Tokyo', WINTER)).toEqual({
      utc: { weekday: 0, startHourUtc: 0 },
    });
    expect(windowInUtc({ weekday: 0, time: '01:00' }, 'Europe/Berlin', WINTER).utc).toEqual({
      weekday: 0,
      startHourUtc: 0,
    });
    expect(windowInUtc({ weekday: 0, time: '01:00' }, 'Europe/Berlin', WINTER).note).toContain('sun 02:00 local time');
    expect(windowInUtc({ weekday: 0, time: '00:00' }, 'UTC', WINTER).problem).toBeUndefined();
    expect(windowInUtc({ weekday: 0, time: '03:00' }, 'UTC', WINTER).problem).toContain('sun 00:00 or sun 06:00');
    // Before Sunday 00:00 UTC comes Saturday 18:00 UTC: the week wraps.
    expect(windowInUtc({ weekday: 0, time: '00:00' }, 'Europe/Berlin', WINTER).problem).toContain(
      'The nearest that do, in Europe/Berlin: sat 19:00 or sun 01:00',
    );
  });
});
