import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { CostLedger } from '../../src/cost/ledger.js';
import { addDays, dayOf, type DayRange } from '../../src/core/cost/period.js';
import { CostRowSchema, type CostRow } from '../../src/core/cost/schema.js';
import type { CostDayStore, UsageCostAnswer, UsageCostSource } from '../../src/ports/cost.js';
import { MemoryCostStore } from '../../src/store/memory/cost-store.js';
import { RedisCostStore } from '../../src/store/redis/cost-store.js';
import { deleteKeysWithPrefix, randomKeyPrefix, REDIS_URL } from '../support/redis.js';

const NOW = Date.parse('2026-05-20T10:00:00Z');
const TODAY = dayOf(NOW);

/** An API of one service costing 1 CHC a day, unlocked for the last two days; calls are counted. */
class CountingApi implements UsageCostSource {
  calls: DayRange[] = [];
  /** While set, answers wait for it (to hold calls in flight). */
  gate: Promise<void> | undefined;
  constructor(private readonly now: () => number) {}
  async usageCost(range: DayRange): Promise<UsageCostAnswer> {
    this.calls.push(range);
    await this.gate;
    const rows: CostRow[] = [];
    const today = dayOf(this.now());
    for (let day = range.from; day <= range.to && day <= today; day = addDays(day, 1)) {
      const locked = day < addDays(today, -1);
      rows.push(CostRowSchema.parse({ date: day, entityType: 'service', entityId: 's', totalCHC: 1, locked }));
    }
    return { rows, requestId: 'r' };
  }
}

const redis = new Redis(REDIS_URL);
const prefixes: string[] = [];
afterAll(async () => {
  for (const prefix of prefixes) await deleteKeysWithPrefix(prefix);
  await redis.quit();
});

function redisStore(): CostDayStore {
  const keyPrefix = randomKeyPrefix();
  prefixes.push(keyPrefix);
  return new RedisCostStore(redis, { keyPrefix });
}

describe.each([
  ['memory', () => new MemoryCostStore(() => NOW) as CostDayStore],
  ['Redis', redisStore],
])('the cost ledger over the %s store', (_name, openStore) => {
  const range = { from: addDays(TODAY, -90), to: addDays(TODAY, -1) };

  it('reads 90 days in three calls, then only the unlocked days, and those at most once an hour', async () => {
    const clock = { now: NOW };
    const api = new CountingApi(() => clock.now);
    const ledger = new CostLedger({ api, store: openStore(), now: () => clock.now });
    expect(await ledger.rows(range)).toHaveLength(90);
    expect(api.calls).toHaveLength(3);
    await ledger.rows(range);
    expect(api.calls).toHaveLength(3);
    clock.now += 59 * 60_000;
    await ledger.rows(range);
    expect(api.calls).toHaveLength(3);
    clock.now += 2 * 60_000;
    await ledger.rows(range);
    // Yesterday is the only unlocked day in the range (today is outside it).
    expect(api.calls.slice(3)).toEqual([{ from: addDays(TODAY, -1), to: addDays(TODAY, -1) }]);
  });

  it('a second replica on the same store reads nothing that is locked', async () => {
    const store = openStore();
    const first = new CountingApi(() => NOW);
    await new CostLedger({ api: first, store, now: () => NOW }).rows(range);
    const second = new CountingApi(() => NOW + 2 * 3_600_000);
    await new CostLedger({ api: second, store, now: () => NOW + 2 * 3_600_000 }).rows(range);
    expect(second.calls).toEqual([{ from: addDays(TODAY, -1), to: addDays(TODAY, -1) }]);
  });

  it("never answers with another organization's days (CLICKHOUSE_ORG_ID or the file's first organization changed)", async () => {
    const store = openStore();
    const week = { from: addDays(TODAY, -7), to: addDays(TODAY, -1) };
    await new CostLedger({
      api: new CountingApi(() => NOW),
      store,
      now: () => NOW,
      organizationId: () => 'org-a',
    }).rows(week);
    const other: UsageCostSource = {
      usageCost: (piece) =>
        Promise.resolve({
          rows: [
            CostRowSchema.parse({ date: piece.from, entityType: 'service', entityId: 'b', totalCHC: 5, locked: true }),
          ],
          requestId: 'r',
        }),
    };
    const rows = await new CostLedger({ api: other, store, now: () => NOW, organizationId: () => 'org-b' }).rows(week);
    expect(rows.map((row) => row.entityId)).toEqual(['b']);
  });
});

describe('single flight', () => {
  it('ten concurrent asks for the same range share one call per piece', async () => {
    const api = new CountingApi(() => NOW);
    let open: () => void = () => undefined;
    api.gate = new Promise((resolve) => (open = resolve));
    const ledger = new CostLedger({ api, store: new MemoryCostStore(() => NOW), now: () => NOW });
    const range = { from: addDays(TODAY, -13), to: addDays(TODAY, -1) };
    const asks = Array.from({ length: 10 }, () => ledger.rows(range));
    await new Promise((resolve) => setImmediate(resolve));
    open();
    const answers = await Promise.all(asks);
    expect(api.calls).toHaveLength(1);
    expect(answers.every((rows) => rows.length === 13)).toBe(true);
  });

  it('a failed read is not kept: the next ask reads again', async () => {
    const api = new CountingApi(() => NOW);
    let fail = true;
    const flaky: UsageCostSource = {
      usageCost: (range) => (fail ? Promise.reject(new Error('API down')) : api.usageCost(range)),
    };
    const ledger = new CostLedger({ api: flaky, store: new MemoryCostStore(() => NOW), now: () => NOW });
    const range = { from: addDays(TODAY, -3), to: addDays(TODAY, -1) };
    await expect(ledger.rows(range)).rejects.toThrow('API down');
    fail = false;
    expect(await ledger.rows(range)).toHaveLength(3);
  });
});

describe('the kept days', () => {
  it.each([
    ['memory', () => new MemoryCostStore(() => NOW) as CostDayStore],
    ['Redis', redisStore],
  ])('drop days 200 before the newest written (%s)', async (_name, openStore) => {
    const store = openStore();
    const day = (date: string) => ({ date, rows: [], settled: true, readAt: NOW });
    await store.writeDays([day('2025-01-01'), day('2025-06-01')]);
    await store.writeDays([day('2025-08-01')]);
    const kept = await store.readDays(['2025-01-01', '2025-06-01', '2025-08-01']);
    expect([...kept.keys()]).toEqual(['2025-06-01', '2025-08-01']);
  });
});
