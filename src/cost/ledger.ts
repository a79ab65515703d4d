/**
 * The organization's daily cost rows, read from the API as little as possible. A day whose rows
 * are all `locked` never changes: once read it is kept (in Redis, shared by replicas) and never
 * read again. A day not yet locked (the last two) is read again at most once an hour. What is
 * missing is read in calls of at most 31 days (core/cost/period.ts coveringPieces), so a command
 * costs at most one call per 31 days of range not cached; concurrent asks for the same range share
 * one read (single flight, in this process).
 *
 * The whole organization is read and kept, unfiltered: a tag filter or a service is applied to the
 * kept rows, so every filter shares one cache (as the service list does).
 */
import { coveringPieces, dayOf, daysOf, type Day, type DayRange } from '../core/cost/period.js';
import type { CostRow } from '../core/cost/schema.js';
import type { CostDayStore, CostReader, StoredCostDay, UsageCostSource } from '../ports/cost.js';
import type { ReadOptions } from '../ports/service-directory.js';

export const UNLOCKED_REREAD_MS = 3_600_000;

export interface CostLedgerOptions {
  api: UsageCostSource;
  store: CostDayStore;
  now?: () => number;
  /** How long an unlocked day is reused before it is read again (an hour). */
  rereadMs?: number;
  /** The organization read now (it may change on reload): days stored for another one are read again. */
  organizationId?: () => string | undefined;
}

export class CostLedger implements CostReader {
  private readonly inFlight = new Map<string, Promise<CostRow[]>>();
  private readonly now: () => number;
  private readonly rereadMs: number;

  constructor(private readonly options: CostLedgerOptions) {
    this.now = options.now ?? Date.now;
    this.rereadMs = options.rereadMs ?? UNLOCKED_REREAD_MS;
  }

  /** Every row of the days in range (days after today have none). */
  rows(range: DayRange, options: ReadOptions = {}): Promise<CostRow[]> {
    const key = `${range.from}..${range.to}`;
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const read = this.read(range, options).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, read);
    return read;
  }

  private async read(range: DayRange, options: ReadOptions): Promise<CostRow[]> {
    const now = this.now();
    const today = dayOf(now);
    const wanted = daysOf(range).filter((day) => day <= today);
    const stored = await this.options.store.readDays(wanted);
    const organizationId = this.options.organizationId?.();
    const missing = wanted.filter((day) => !this.usable(stored.get(day), now, organizationId));
    for (const piece of coveringPieces(missing)) {
      const answer = await this.options.api.usageCost(piece, [], options);
      const fresh = daysRead(piece, answer.rows, now, organizationId);
      await this.options.store.writeDays(fresh);
      for (const day of fresh) stored.set(day.date, day);
    }
    return wanted.flatMap((day) => stored.get(day)?.rows ?? []);
  }

  private usable(day: StoredCostDay | undefined, now: number, organizationId: string | undefined): boolean {
    if (day === undefined || day.organizationId !== organizationId) return false;
    return day.settled || now - day.readAt < this.rereadMs;
  }
}

/**
 * The days of one answer. A day is settled when it has rows and all are locked; a day without
 * rows is settled only when a later day of the same answer is (nothing ran that day, and the API
 * has closed the books past it).
 */
export function daysRead(
  piece: DayRange,
  rows: readonly CostRow[],
  readAt: number,
  organizationId?: string,
): StoredCostDay[] {
  const byDay = new Map<Day, CostRow[]>();
  for (const row of rows) byDay.set(row.date, [...(byDay.get(row.date) ?? []), row]);
  const days = daysOf(piece).filter((day) => day <= dayOf(readAt));
  const lockedWithRows = (day: Day) => {
    const of = byDay.get(day) ?? [];
    return of.length > 0 && of.every((row) => row.locked);
  };
  const lastLocked = [...days].reverse().find(lockedWithRows);
  return days.map((date) => {
    const of = byDay.get(date) ?? [];
    const settled = of.length > 0 ? lockedWithRows(date) : lastLocked !== undefined && date < lastLocked;
    return { date, rows: of, settled, readAt, ...(organizationId === undefined ? {} : { organizationId }) };
  });
}
