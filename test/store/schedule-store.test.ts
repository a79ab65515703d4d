/**
 * The ScheduleStore contract against the memory store and a single Redis server, and what only
 * the Redis store has to keep (key layout, expiry, restarts, damaged entries).
 */
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryScheduleStore, RedisScheduleStore } from '../../src/store/index.js';
import { SNAPSHOT_TTL_SECONDS } from '../../src/store/redis/keys.js';
import { REDIS_URL, deleteKeysWithPrefix, keysWithPrefix, randomKeyPrefix } from '../support/redis.js';
import { singleRedis } from '../support/stores.js';
import { runScheduleStoreContract, schedule, T0, type OpenedScheduleStore } from './schedule-store.contract.js';

function openMemory(): OpenedScheduleStore {
  const store = new MemoryScheduleStore();
  return { store, sibling: store, dispose: () => store.close() };
}

describe('ScheduleStore contract (memory)', () => runScheduleStoreContract(openMemory));
describe('ScheduleStore contract (redis)', () => runScheduleStoreContract(singleRedis().scheduleStores));

describe('RedisScheduleStore only', () => {
  let keyPrefix: string;
  let store: RedisScheduleStore;
  const admin = () => new Redis(REDIS_URL);

  afterEach(async () => {
    await store.close();
    await deleteKeysWithPrefix(keyPrefix);
  });

  function openStore(): RedisScheduleStore {
    keyPrefix = randomKeyPrefix();
    store = new RedisScheduleStore(REDIS_URL, { keyPrefix });
    return store;
  }

  it('keeps every key under the {schedules} hash tag, and lets snapshots expire after 90 days', async () => {
    openStore();
    await store.addSchedule(schedule());
    await store.claimRun('sch-000001', T0);
    await store.writeSnapshot('schedule:sch-000001', '{}');
    const redis = admin();
    try {
      expect((await keysWithPrefix(redis, keyPrefix)).sort()).toStrictEqual(
        [
          `${keyPrefix}{schedules}:all`,
          `${keyPrefix}{schedules}:lastrun`,
          `${keyPrefix}{schedules}:snap:schedule:sch-000001`,
        ].sort(),
      );
      const ttl = await redis.ttl(`${keyPrefix}{schedules}:snap:schedule:sch-000001`);
      expect(ttl).toBeGreaterThan(SNAPSHOT_TTL_SECONDS - 60);
      expect(ttl).toBeLessThanOrEqual(SNAPSHOT_TTL_SECONDS);
      // The schedules themselves do not expire.
      expect(await redis.ttl(`${keyPrefix}{schedules}:all`)).toBe(-1);
    } finally {
      await redis.quit();
    }
  });

  it('survives a restart: a new store on the same prefix sees the schedules and the last run', async () => {
    openStore();
    const added = schedule();
    await store.addSchedule(added);
    await store.claimRun(added.id, T0);
    await store.close();
    store = new RedisScheduleStore(REDIS_URL, { keyPrefix });
    expect(await store.listSchedules()).toStrictEqual([added]);
    expect(await store.lastRun(added.id)).toBe(T0);
    expect(await store.claimRun(added.id, T0)).toBe(false);
  });

  it('skips a stored schedule of another shape instead of failing the whole list', async () => {
    openStore();
    await store.addSchedule(schedule({ id: 'sch-good' }));
    const redis = admin();
    try {
      await redis.hset(`${keyPrefix}{schedules}:all`, 'sch-odd', JSON.stringify({ id: 'sch-odd', cron: 42 }));
    } finally {
      await redis.quit();
    }
    expect((await store.listSchedules()).map((s) => s.id)).toStrictEqual(['sch-good']);
  });

  it('does not close a connection it was given', async () => {
    keyPrefix = randomKeyPrefix();
    const shared = new Redis(REDIS_URL);
    store = new RedisScheduleStore(shared, { keyPrefix });
    await store.addSchedule(schedule());
    await store.close();
    expect(await shared.ping()).toBe('PONG');
    await shared.quit();
    store = new RedisScheduleStore(REDIS_URL, { keyPrefix });
  });
});
