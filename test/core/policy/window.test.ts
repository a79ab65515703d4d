/** Maintenance windows and freezes: open or not, the next opening across DST, day wrap, freezes. */
import { describe, expect, it } from 'vitest';
import type { ChangeWindow, Requirement } from '../../../src/core/policy/types.js';
import {
  closingAfter,
  freezeInForce,
  isOpen,
  nextOpening,
  timingOf,
  zonedInstant,
} from '../../../src/core/policy/window.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const BERLIN_WEEKDAYS: ChangeWindow = {
  days: ['mon', 'tue', 'wed', 'thu'],
  fromMinute: 9 * 60,
  toMinute: 16 * 60,
  tz: 'Europe/Berlin',
};
const requirement = (extra: Partial<Requirement>): Requirement => ({
  rule: 'production',
  approvals: 1,
  approvers: [],
  reasons: ['env=prod'],
  ...extra,
});

describe('a window Mon–Thu 09:00–16:00 Berlin', () => {
  it('is open from 09:00 up to (not including) 16:00 on the listed days only', () => {
    expect(isOpen(BERLIN_WEEKDAYS, at('2026-11-23T08:00:00Z'))).toBe(true); // Mon 09:00 CET
    expect(isOpen(BERLIN_WEEKDAYS, at('2026-11-23T07:59:00Z'))).toBe(false);
    expect(isOpen(BERLIN_WEEKDAYS, at('2026-11-26T14:59:00Z'))).toBe(true); // Thu 15:59
    expect(isOpen(BERLIN_WEEKDAYS, at('2026-11-26T15:00:00Z'))).toBe(false); // Thu 16:00
    expect(isOpen(BERLIN_WEEKDAYS, at('2026-11-27T10:00:00Z'))).toBe(false); // Fri
  });

  it('opens next at the same wall-clock time on either side of a DST change', () => {
    // Summer time starts Sunday 2026-03-29: Monday 09:00 is 07:00 UTC, the Monday before 08:00 UTC.
    expect(iso(nextOpening(BERLIN_WEEKDAYS, at('2026-03-20T12:00:00Z')))).toBe('2026-03-23T08:00:00.000Z');
    expect(iso(nextOpening(BERLIN_WEEKDAYS, at('2026-03-27T12:00:00Z')))).toBe('2026-03-30T07:00:00.000Z');
    // Winter time again from Sunday 2026-10-25.
    expect(iso(nextOpening(BERLIN_WEEKDAYS, at('2026-10-23T12:00:00Z')))).toBe('2026-10-26T08:00:00.000Z');
  });

  it('opens later the same day before 09:00, and is "now" while open', () => {
    expect(iso(nextOpening(BERLIN_WEEKDAYS, at('2026-11-24T05:00:00Z')))).toBe('2026-11-24T08:00:00.000Z');
    expect(nextOpening(BERLIN_WEEKDAYS, at('2026-11-24T10:00:00Z'))).toBe(at('2026-11-24T10:00:00Z'));
    expect(iso(closingAfter(BERLIN_WEEKDAYS, at('2026-11-24T10:00:00Z')))).toBe('2026-11-24T15:00:00.000Z');
  });
});

describe('local times that do not exist or exist twice', () => {
  const daily = (from: number, to: number): ChangeWindow => ({
    days: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'],
    fromMinute: from,
    toMinute: to,
    tz: 'Europe/Berlin',
  });

  it('an opening in the skipped spring hour opens as late as the skip (02:30 -> 03:30)', () => {
    expect(iso(nextOpening(daily(150, 240), at('2026-03-28T12:00:00Z')))).toBe('2026-03-29T01:30:00.000Z');
    expect(iso(zonedInstant({ year: 2026, month: 3, day: 29 }, 150, 'Europe/Berlin'))).toBe('2026-03-29T01:30:00.000Z');
  });

  it('an opening in the repeated autumn hour opens at its first occurrence', () => {
    expect(iso(nextOpening(daily(150, 240), at('2026-10-24T12:00:00Z')))).toBe('2026-10-25T00:30:00.000Z');
  });

  it('New York follows its own DST dates', () => {
    const ny: ChangeWindow = { days: ['mon'], fromMinute: 9 * 60, toMinute: 17 * 60, tz: 'America/New_York' };
    expect(iso(nextOpening(ny, at('2026-03-03T12:00:00Z')))).toBe('2026-03-09T13:00:00.000Z'); // EDT from Mar 8
    expect(iso(nextOpening(ny, at('2026-02-24T12:00:00Z')))).toBe('2026-03-02T14:00:00.000Z'); // EST
  });
});

describe('a window that wraps past midnight (Fri 22:00–02:00 UTC)', () => {
  const night: ChangeWindow = { days: ['fri'], fromMinute: 22 * 60, toMinute: 2 * 60, tz: 'UTC' };

  it('belongs to the day it opens on', () => {
    expect(isOpen(night, at('2026-11-27T21:59:00Z'))).toBe(false); // Fri
    expect(isOpen(night, at('2026-11-27T22:00:00Z'))).toBe(true);
    expect(isOpen(night, at('2026-11-28T01:59:00Z'))).toBe(true); // Sat morning
    expect(isOpen(night, at('2026-11-28T02:00:00Z'))).toBe(false);
    expect(isOpen(night, at('2026-11-27T01:00:00Z'))).toBe(false); // Fri morning belongs to Thursday
  });

  it('closes the next morning and opens again the next Friday', () => {
    expect(iso(closingAfter(night, at('2026-11-27T23:00:00Z')))).toBe('2026-11-28T02:00:00.000Z');
    expect(iso(closingAfter(night, at('2026-11-28T01:00:00Z')))).toBe('2026-11-28T02:00:00.000Z');
    expect(iso(nextOpening(night, at('2026-11-28T03:00:00Z')))).toBe('2026-12-04T22:00:00.000Z');
  });
});

describe('freezes', () => {
  const freezes = [{ from: '2026-12-20', to: '2027-01-04', reason: 'Year-end freeze' }];

  it('count whole days, both inclusive, in the given zone', () => {
    expect(freezeInForce(freezes, 'Europe/Berlin', at('2026-12-19T22:59:00Z'))).toBeUndefined();
    expect(freezeInForce(freezes, 'Europe/Berlin', at('2026-12-19T23:00:00Z'))?.freeze.reason).toBe('Year-end freeze');
    expect(freezeInForce(freezes, 'Europe/Berlin', at('2027-01-04T22:59:00Z'))?.until).toBe(at('2027-01-04T23:00:00Z'));
    expect(freezeInForce(freezes, 'Europe/Berlin', at('2027-01-04T23:00:00Z'))).toBeUndefined();
    expect(freezeInForce(freezes, 'UTC', at('2026-12-19T23:30:00Z'))).toBeUndefined();
  });
});

describe('timingOf the requirements of a request', () => {
  it('is open without windows, and frozen while a rule freezes (counted in its window zone)', () => {
    expect(timingOf([requirement({})], at('2026-11-27T10:00:00Z'))).toEqual({ kind: 'open' });
    const frozen = timingOf(
      [
        requirement({
          window: BERLIN_WEEKDAYS,
          freezes: [{ from: '2026-12-20', to: '2027-01-04', reason: 'Year-end' }],
        }),
      ],
      at('2026-12-19T23:30:00Z'),
    );
    expect(frozen).toMatchObject({ kind: 'frozen', rule: 'production', until: at('2027-01-04T23:00:00Z') });
  });

  it('defers outside the window to the next opening, past a freeze that covers it', () => {
    const friday = at('2026-11-27T10:00:00Z');
    expect(timingOf([requirement({ window: BERLIN_WEEKDAYS })], friday)).toMatchObject({
      kind: 'deferred',
      at: at('2026-11-30T08:00:00Z'),
    });
    const mondayFrozen = requirement({
      window: BERLIN_WEEKDAYS,
      freezes: [{ from: '2026-11-30', to: '2026-11-30', reason: 'Release day' }],
    });
    expect(timingOf([mondayFrozen], friday)).toMatchObject({ kind: 'deferred', at: at('2026-12-01T08:00:00Z') });
  });

  it('needs every window open at once, and says never when they cannot be', () => {
    const tuesdayAfternoon: ChangeWindow = { days: ['tue'], fromMinute: 14 * 60, toMinute: 18 * 60, tz: 'UTC' };
    const both = [requirement({ window: BERLIN_WEEKDAYS }), requirement({ rule: 'b', window: tuesdayAfternoon })];
    expect(timingOf(both, at('2026-11-23T10:00:00Z'))).toMatchObject({
      kind: 'deferred',
      at: at('2026-11-24T14:00:00Z'),
    });
    const fridayOnly: ChangeWindow = { days: ['fri'], fromMinute: 0, toMinute: 1440, tz: 'UTC' };
    const never = timingOf(
      [requirement({ window: BERLIN_WEEKDAYS }), requirement({ rule: 'c', window: fridayOnly })],
      at('2026-11-23T10:00:00Z'),
    );
    expect(never.kind).toBe('never');
  });
});
