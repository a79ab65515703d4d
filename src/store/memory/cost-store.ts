/** The cost days and alert claims of one process (no REDIS_URL): same contract as the Redis store. */
import { COST_DAYS_KEPT, type CostDayStore, type StoredCostDay } from '../../ports/cost.js';
import { oldestDayKept } from '../../core/cost/period.js';

export class MemoryCostStore implements CostDayStore {
  private readonly days = new Map<string, StoredCostDay>();
  private readonly claims = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  readDays(dates: readonly string[]): Promise<Map<string, StoredCostDay>> {
    const found = new Map<string, StoredCostDay>();
    for (const date of dates) {
      const day = this.days.get(date);
      if (day) found.set(date, structuredClone(day));
    }
    return Promise.resolve(found);
  }

  writeDays(days: readonly StoredCostDay[]): Promise<void> {
    for (const day of days) this.days.set(day.date, structuredClone(day));
    if (days.length > 0) {
      const cutoff = oldestDayKept(
        days.map((day) => day.date),
        COST_DAYS_KEPT,
      );
      for (const date of this.days.keys()) if (date < cutoff) this.days.delete(date);
    }
    return Promise.resolve();
  }

  claimOnce(key: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    const until = this.claims.get(key);
    if (until !== undefined && until > now) return Promise.resolve(false);
    this.claims.set(key, now + ttlMs);
    return Promise.resolve(true);
  }
}
