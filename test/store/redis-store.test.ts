/**
 * What only the Redis store has: its key layout, key expiry, connection ownership and how it
 * behaves when Redis cannot be reached.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RETENTION_SECONDS, RedisChangeStore } from '../../src/store/index.js';
import { DEFAULT_AUDIT_RETENTION_DAYS, requestedAuditEntry } from '../../src/store/rules.js';
import { RENEW_EVERY_MS } from '../../src/store/redis/stream-expiry.js';
import { policyReloadFields } from '../../src/core/audit/export.js';
import { approve, buildChangeRequest, buildPlan, markApplied } from './fixtures.js';
import { auditToStreamArgs } from '../../src/store/redis/codec.js';
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
        `${keyPrefix}{changes}:audit:ch:C-ops:svc:${request.plan.serviceId}`,
        `${keyPrefix}{changes}:audit:ch:C-ops:services`,
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

  it("renews an audit stream's expiry once a day per process, not with every entry, and only when it wrote one", async () => {
    openStore();
    const day = RENEW_EVERY_MS;
    const retention = DEFAULT_AUDIT_RETENTION_DAYS * day;
    const streams = [
      `${keyPrefix}{changes}:audit`,
      `${keyPrefix}{changes}:audit:ch:C-ops:svc:${buildChangeRequest().plan.serviceId}`,
      `${keyPrefix}{changes}:audit:ch:C-ops:services`,
    ];
    const ttls = () => Promise.all(streams.map((stream) => admin.pttl(stream)));
    const first = buildChangeRequest();
    await store.create(first);
    // The first entry: the retention and a day, so an entry written up to a day later still lives the retention.
    for (const ttl of await ttls()) expect(ttl).toBeGreaterThan(retention + day - 60_000);
    for (const stream of streams) await admin.pexpire(stream, 3_600_000);
    await store.transition(first.id, approve());
    // This process renewed them a moment ago: the entry is written, the expiry left alone.
    for (const ttl of await ttls()) expect(ttl).toBeLessThanOrEqual(3_600_000);

    // Another process (another replica, or a restart) renews once, but not on a step that wrote nothing.
    const other = new RedisChangeStore(REDIS_URL, { keyPrefix });
    try {
      expect((await other.transition(first.id, approve())).ok).toBe(false);
      for (const ttl of await ttls()) expect(ttl).toBeLessThanOrEqual(3_600_000);
      const second = buildChangeRequest();
      await other.create(second);
      for (const ttl of await ttls()) expect(ttl).toBeGreaterThan(retention + day - 60_000);
    } finally {
      await other.close();
    }
  });

  it('a stream gone since this process renewed it (a failover lost it, someone deleted it) is made again with its expiry and its service named', async () => {
    openStore();
    const request = buildChangeRequest();
    const streams = [
      `${keyPrefix}{changes}:audit`,
      `${keyPrefix}{changes}:audit:ch:C-ops:svc:${request.plan.serviceId}`,
      `${keyPrefix}{changes}:audit:ch:C-ops:services`,
    ];
    await store.create(request);
    await admin.del(...streams);
    await store.transition(request.id, approve());
    // Not a stream without expiry, kept forever should its service go quiet, nor one its channel's history misses.
    for (const stream of streams) expect(await admin.pttl(stream)).toBeGreaterThan(0);
    expect((await store.readAudit({ channelId: 'C-ops', limit: 10 })).map((e) => e.action)).toStrictEqual(['approved']);
  });

  it("an entry recorded through the outbox (a policy reload) never shortens the audit stream's expiry", async () => {
    // The stream's expiry is renewed daily, to the retention and a day: an entry of the next day
    // must still live the retention, however a reload in between set the expiry.
    openStore();
    const day = RENEW_EVERY_MS;
    const retention = DEFAULT_AUDIT_RETENTION_DAYS * day;
    await store.create(buildChangeRequest());
    await store.auditOutbox().record(policyReloadFields({ at: Date.now(), path: 'policy.yaml', result: 'unchanged' }));
    expect(await admin.pttl(`${keyPrefix}{changes}:audit`)).toBeGreaterThan(retention + day - 60_000);
  });

  it("reads a channel's history from its services' streams and, until it expires, the channel's stream of before", async () => {
    openStore();
    const legacy = `${keyPrefix}{changes}:audit:ch:C-ops`;
    // Written by an older version: the main stream, then with the same id the channel's own stream
    // (and the service's). Ids come from the main stream, as then: two streams' own '*' ids of the
    // same millisecond would be one entry to the history (it dedupes by id), a flaky test.
    const main = `${keyPrefix}{changes}:audit`;
    const old = buildChangeRequest({ plan: buildPlan({ serviceId: 'svc-old' }) });
    const oldEntry = auditToStreamArgs(requestedAuditEntry(old));
    const oldId = (await admin.xadd(main, '*', ...oldEntry)) ?? '*';
    await admin.xadd(legacy, oldId, ...oldEntry);
    await admin.xadd(`${keyPrefix}{changes}:audit:ch:C-ops:svc:svc-old`, oldId, ...oldEntry);
    const older = buildChangeRequest({ plan: buildPlan({ serviceId: 'svc-gone' }) });
    const olderEntry = auditToStreamArgs(requestedAuditEntry(older));
    await admin.xadd(legacy, (await admin.xadd(main, '*', ...olderEntry)) ?? '*', ...olderEntry);
    // Written now: the service's stream only.
    const now = buildChangeRequest({ plan: buildPlan({ serviceId: 'svc-new' }) });
    await store.create(now);
    await store.transition(now.id, approve());

    const history = await store.readAudit({ channelId: 'C-ops', limit: 10 });
    expect(history.map((entry) => [entry.changeId, entry.action])).toStrictEqual([
      [now.id, 'approved'],
      [now.id, 'requested'],
      [older.id, 'requested'],
      [old.id, 'requested'],
    ]);
    expect(await store.readAudit({ channelId: 'C-ops', limit: 2 })).toHaveLength(2);
    expect(
      (await store.readAudit({ channelId: 'C-ops', serviceId: 'svc-new', limit: 10 })).map((e) => e.action),
    ).toStrictEqual(['approved', 'requested']);
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
