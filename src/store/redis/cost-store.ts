/**
 * CostDayStore over Redis: the days of usageCost read so far, shared by every replica (one hash,
 * one field per day), and alert claims. Key layout: keys.ts.
 */
import { z } from 'zod';
import { CostRowSchema } from '../../core/cost/schema.js';
import { COST_DAYS_KEPT, type CostDayStore, type StoredCostDay } from '../../ports/cost.js';
import { oldestDayKept } from '../../core/cost/period.js';
import type { RedisConnection } from './connection.js';
import { reportUnavailableAsStoreErrors } from './errors.js';
import { costKeys, type CostKeys } from './keys.js';

const StoredDaySchema = z.object({
  date: z.string(),
  rows: z.array(CostRowSchema),
  settled: z.boolean(),
  readAt: z.number(),
  organizationId: z.string().optional(),
});

function parseDay(json: string | null): StoredCostDay | undefined {
  if (json === null) return undefined;
  try {
    const parsed = StoredDaySchema.safeParse(JSON.parse(json));
    // A damaged day is read again from the API rather than trusted.
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export class RedisCostStore implements CostDayStore {
  private readonly keys: CostKeys;

  constructor(
    private readonly redis: RedisConnection,
    options: { keyPrefix?: string } = {},
  ) {
    this.keys = costKeys(options.keyPrefix);
    // biome-ignore lint/correctness/noConstructorReturn: every method's Redis failures become the store's own
    return reportUnavailableAsStoreErrors(this);
  }

  async readDays(dates: readonly string[]): Promise<Map<string, StoredCostDay>> {
    const found = new Map<string, StoredCostDay>();
    if (dates.length === 0) return found;
    const values = await this.redis.hmget(this.keys.days, ...dates);
    dates.forEach((date, i) => {
      const day = parseDay(values[i] ?? null);
      if (day && day.date === date) found.set(date, day);
    });
    return found;
  }

  async writeDays(days: readonly StoredCostDay[]): Promise<void> {
    if (days.length === 0) return;
    const fields = days.flatMap((day) => [day.date, JSON.stringify(day)]);
    await this.redis.hset(this.keys.days, ...fields);
    const old = (await this.redis.hkeys(this.keys.days)).filter(
      (date) =>
        date <
        oldestDayKept(
          days.map((day) => day.date),
          COST_DAYS_KEPT,
        ),
    );
    if (old.length > 0) await this.redis.hdel(this.keys.days, ...old);
  }

  async claimOnce(key: string, ttlMs: number): Promise<boolean> {
    const answer = await this.redis.set(this.keys.claim(key), '1', 'PX', Math.max(1, Math.round(ttlMs)), 'NX');
    return answer === 'OK';
  }
}
