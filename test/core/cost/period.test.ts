import { describe, expect, it } from 'vitest';
import {
  addDays,
  coveringPieces,
  dayCount,
  daysOf,
  periodEndingYesterday,
  pieces,
  previousPeriod,
} from '../../../src/core/cost/period.js';

describe('periods of UTC days', () => {
  it('ends yesterday in UTC whatever the hour, and includes both ends', () => {
    // 23:30 in UTC is already the next day in Berlin: the period still ends on the UTC yesterday.
    const period = periodEndingYesterday(Date.parse('2026-03-01T23:30:00Z'), 7);
    expect(period).toEqual({ from: '2026-02-22', to: '2026-02-28' });
    expect(dayCount(period)).toBe(7);
    expect(periodEndingYesterday(Date.parse('2026-03-02T00:00:00Z'), 1)).toEqual({
      from: '2026-03-01',
      to: '2026-03-01',
    });
  });

  it('crosses month, leap day and year ends', () => {
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(daysOf({ from: '2026-12-30', to: '2027-01-02' })).toEqual([
      '2026-12-30',
      '2026-12-31',
      '2027-01-01',
      '2027-01-02',
    ]);
  });

  it('the previous period has the same length and ends the day before', () => {
    expect(previousPeriod({ from: '2026-03-01', to: '2026-03-30' })).toEqual({ from: '2026-01-30', to: '2026-02-28' });
  });

  it('cuts 90 days into pieces of at most 31 that cover every day once', () => {
    const range = { from: '2026-01-01', to: '2026-03-31' };
    const parts = pieces(range);
    expect(parts.map(dayCount)).toEqual([31, 31, 28]);
    expect(parts.flatMap(daysOf)).toEqual(daysOf(range));
    expect(pieces({ from: '2026-01-01', to: '2026-01-31' })).toHaveLength(1);
  });

  it('reads missing days in as few calls of 31 days as they need', () => {
    const missing = [...daysOf({ from: '2026-01-01', to: '2026-02-05' }), '2026-03-30', '2026-03-31'];
    expect(coveringPieces(missing)).toEqual([
      { from: '2026-01-01', to: '2026-01-31' },
      { from: '2026-02-01', to: '2026-02-05' },
      { from: '2026-03-30', to: '2026-03-31' },
    ]);
    // Two unlocked days and nothing else: one call.
    expect(coveringPieces(['2026-03-31', '2026-03-30'])).toEqual([{ from: '2026-03-30', to: '2026-03-31' }]);
    expect(coveringPieces([])).toEqual([]);
  });
});
