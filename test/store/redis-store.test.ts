/**
 * What only the Redis store has: its key layout, key expiry, connection ownership and how it
 * behaves when Redis cannot be reached.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RETENTION_SECONDS, RedisChangeStore } from '../../src/store/index.js';
import { approve, buildChangeRequest, markApplied } from './fixtures.js';
import { REDIS_URL, deleteKeysWithPrefix, keysWithPrefix, randomKeyPrefix } from '../support/redis.js';

describe('RedisChangeStore', () => {
  let admin: Redis;
  let keyPrefix: string;
  let store: RedisChangeStore;

  beforeAll(() => {
    admin = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    await admin.quit();
  });
  afterEach(async () => {
    await store.close();
    await deleteKeysWithPrefix(keyPrefix);
  });

  function openStore(): RedisChangeStore {
    keyPrefix = randomKeyPrefix();
    store = new RedisChangeStore(REDIS_URL, { keyPrefix });
    return store;
  }

  it('keeps every key under one hash tag, so Redis Cluster puts them in one slot', async () => {
    openStore();
    const request = buildChangeRequest();
    await store.create(request);
    await store.transition(request.id, approve());

    const keys = await keysWithPrefix(admin, keyPrefix);
    expect(keys.sort()).toStrictEqual(
      [
        `${keyPrefix}{changes}:applying`,
        `${keyPrefix}{changes}:audit`,
        `${keyPrefix}{changes}:audit:ch:C-ops`,
        `${keyPrefix}{changes}:pending:C-ops`,
        `${keyPrefix}{changes}:req:${request.id}`,
      ].sort(),
    );
  });

  it('stores the request as created in "data" and what changes in fields of their own', async () => {
    openStore();
    const request = buildChangeRequest();
    await store.create(request);
    const now = Date.now();
    await store.transition(request.id, approve('U-approver', now));

    const hash = await admin.hgetall(`${keyPrefix}{changes}:req:${request.id}`);
    const { status: _status, ...immutable } = request;
    expect(JSON.parse(hash.data ?? '')).toStrictEqual(immutable);
    expect(hash).toMatchObject({ status: 'applying', decidedBy: 'U-approver', decidedAt: String(now) });
  });

  it('lets the request hash expire at expiresAt plus the retention', async () => {
    openStore();
    const request = buildChangeRequest();
    await store.create(request);
    const before = Date.now();
    const ttl = await admin.pttl(`${keyPrefix}{changes}:req:${request.id}`);
    const deadline = request.expiresAt + DEFAULT_RETENTION_SECONDS * 1000;
    expect(before + ttl).toBeGreaterThan(deadline - 1_000);
    expect(before + ttl).toBeLessThanOrEqual(deadline);
    const indexTtl = await admin.pttl(`${keyPrefix}{changes}:pending:C-ops`);
    expect(indexTtl).toBeGreaterThan(DEFAULT_RETENTION_SECONDS * 1000);
  });

  it('keeps a request deferred at approval until its new time plus the retention, not its old expiry', async () => {
    // Approved after its window closed, with a freeze over the next opening: it waits weeks in
    // the scheduled index, and its record must still be there when its time comes.
    openStore();
    const request = buildChangeRequest();
    await store.create(request);
    const applyAt = request.expiresAt + 21 * 86_400_000;
    const result = await store.addApproval(request.id, {
      approval: { userId: 'U-approver', at: Date.now(), counts: [0] },
      audit: { summary: 'Name: analytics -> analytics-2' },
      schedule: { at: applyAt },
    });
    expect(result).toMatchObject({ ok: true, complete: true, request: { status: 'scheduled', applyAt } });
    const before = Date.now();
    const ttl = await admin.pttl(`${keyPrefix}{changes}:req:${request.id}`);
    expect(before + ttl).toBeGreaterThan(applyAt + DEFAULT_RETENTION_SECONDS * 1000 - 1_000);
  });

  it('indexes pending requests by expiry and applying ones in a set', async () => {
    openStore();
    const request = buildChangeRequest();
    await store.create(request);
    expect(await admin.zscore(`${keyPrefix}{changes}:pending:C-ops`, request.id)).toBe(String(request.expiresAt));

    await store.transition(request.id, approve());
    expect(await admin.smembers(`${keyPrefix}{changes}:applying`)).toStrictEqual([request.id]);
    await store.transition(request.id, markApplied());
    expect(await admin.smembers(`${keyPrefix}{changes}:applying`)).toStrictEqual([]);
  });

  it('drops applying ids whose request hash has expired', async () => {
    openStore();
    await admin.sadd(`${keyPrefix}{changes}:applying`, 'long-gone');
    expect(await store.listApplying()).toStrictEqual([]);
    expect(await admin.exists(`${keyPrefix}{changes}:applying`)).toBe(0);
  });

  it('does not recreate a missing request when setting its message ts', async () => {
    openStore();
    await store.setMessageTs('no-such-change', '1700000000.000100');
    expect(await keysWithPrefix(admin, keyPrefix)).toStrictEqual([]);
  });

  it('still works after Redis forgot its scripts (EVALSHA falls back to EVAL)', async () => {
    openStore();
    await store.create(buildChangeRequest());
    await admin.script('FLUSH');
    const request = buildChangeRequest();
    await store.create(request);
    expect((await store.transition(request.id, approve())).ok).toBe(true);
  });

  it('refuses a key prefix with braces, which would split the keys over slots', () => {
    keyPrefix = randomKeyPrefix();
    store = new RedisChangeStore(admin, { keyPrefix });
    expect(() => new RedisChangeStore(admin, { keyPrefix: 'chbot:{}' })).toThrow(/braces/);
  });

  it('leaves a connection it was given open on close', async () => {
    keyPrefix = randomKeyPrefix();
    store = new RedisChangeStore(admin, { keyPrefix });
    await store.close();
    expect(await admin.ping()).toBe('PONG');
  });

  it('answers ping with false, quickly, when Redis cannot be reached', async () => {
    keyPrefix = randomKeyPrefix();
    const errors: Error[] = [];
    store = new RedisChangeStore('redis://127.0.0.1:1', {
      keyPrefix,
      onConnectionError: (error) => errors.push(error),
    });
    await expect(store.ping()).resolves.toBe(false);
    expect(errors.length).toBeGreaterThan(0);
  }, 3_000);

  it('fails commands rather than queueing them while Redis cannot be reached', async () => {
    keyPrefix = randomKeyPrefix();
    store = new RedisChangeStore('redis://127.0.0.1:1', { keyPrefix, onConnectionError: () => {} });
    await expect(store.get('anything')).rejects.toThrow();
  }, 3_000);
});
