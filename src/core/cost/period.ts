/**
 * Periods of UTC days, written YYYY-MM-DD as the usageCost API takes and returns them. Every range
 * is inclusive of both ends. Pure: "now" is always passed in.
 */
export type Day = string;

const DAY_MS = 86_400_000;

/** The API refuses a usageCost call spanning more than this many days. */
export const MAX_DAYS_PER_CALL = 31;

export const PERIODS = { '7d': 7, '30d': 30, '90d': 90 } as const;
export type PeriodName = keyof typeof PERIODS;
export const DEFAULT_PERIOD: PeriodName = '7d';

export interface DayRange {
  from: Day;
  to: Day;
}

export const dayOf = (epochMs: number): Day => new Date(epochMs).toISOString().slice(0, 10);
export const startOfDay = (day: Day): number => Date.parse(`${day}T00:00:00Z`);
export const addDays = (day: Day, count: number): Day => dayOf(startOfDay(day) + count * DAY_MS);

export function isDay(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(text) && dayOf(startOfDay(text)) === text;
}

/** How many days from..to holds, both included (0 when to is before from). */
export function dayCount({ from, to }: DayRange): number {
  return Math.max(0, Math.round((startOfDay(to) - startOfDay(from)) / DAY_MS) + 1);
}

export function daysOf(range: DayRange): Day[] {
  return Array.from({ length: dayCount(range) }, (_, i) => addDays(range.from, i));
}

/** The last `days` complete UTC days: ending yesterday, so that every day in it is whole. */
export function periodEndingYesterday(nowMs: number, days: number): DayRange {
  const to = addDays(dayOf(nowMs), -1);
  return { from: addDays(to, -(days - 1)), to };
}

/** The period of the same length just before. */
export function previousPeriod(range: DayRange): DayRange {
  const length = dayCount(range);
  const to = addDays(range.from, -1);
  return { from: addDays(to, -(length - 1)), to };
}

/** Consecutive pieces of at most `max` days covering the range in order. */
export function pieces(range: DayRange, max = MAX_DAYS_PER_CALL): DayRange[] {
  const out: DayRange[] = [];
  for (let from = range.from; dayCount({ from, to: range.to }) > 0; from = addDays(from, max)) {
    const end = addDays(from, max - 1);
    out.push({ from, to: end < range.to ? end : range.to });
  }
  return out;
}

/**
 * The calls that read the given days (sorted or not): each starts at the first day not yet
 * covered and spans at most `max` days, so a run of n missing days costs ceil(n / max) calls and
 * days already known between two missing ones are read again only inside a call that is made
 * anyway.
 */
export function coveringPieces(missing: readonly Day[], max = MAX_DAYS_PER_CALL): DayRange[] {
  const sorted = [...new Set(missing)].sort();
  const out: DayRange[] = [];
  let i = 0;
  while (i < sorted.length) {
    const from = sorted[i] as Day;
    const limit = addDays(from, max - 1);
    let to = from;
    while (i < sorted.length && (sorted[i] as Day) <= limit) {
      to = sorted[i] as Day;
      i += 1;
    }
    out.push({ from, to });
  }
  return out;
}

/** The oldest day a cache keeps once these days are written: `keep` days before the newest. */
export function oldestDayKept(written: readonly Day[], keep: number): Day {
  const newest = written.reduce((latest, day) => (day > latest ? day : latest), '');
  return newest === '' ? '' : addDays(newest, -keep);
}
