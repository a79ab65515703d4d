/**
 * The audit outbox contract, for the memory and the Redis store: the entries a transition records
 * are in it from that same step, each sink reads from its own cursor, an entry handed out and not
 * acknowledged comes back first (to the next replica), and only one replica holds a sink's lease.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChangeStore } from '../../src/ports/index.js';
import { MemoryChangeStore, RedisChangeStore } from '../../src/store/index.js';
import { changeKeys } from '../../src/store/redis/keys.js';
import { deleteKeysWithPrefix, randomKeyPrefix, REDIS_URL } from '../support/redis.js';
import { approve, buildChangeRequest, markApplied } from './fixtures.js';

const prefixes: string[] = [];
const opened: ChangeStore[] = [];
afterAll(async () => {
  await Promise.all(opened.map((store) => store.close()));
  await Promise.all(prefixes.map((prefix) => deleteKeysWithPrefix(prefix)));
});

/** Two handles on one store: two replicas over Redis, the same object in memory. */
const kinds = [
  {
    name: 'memory',
    open(): [ChangeStore, ChangeStore] {
      const store = new MemoryChangeStore();
      return [store, store];
    },
  },
  {
    name: 'Redis',
    open(): [ChangeStore, ChangeStore] {
      const keyPrefix = randomKeyPrefix();
      prefixes.push(keyPrefix);
      const pair: [ChangeStore, ChangeStore] = [
        new RedisChangeStore(REDIS_URL, { keyPrefix }),
        new RedisChangeStore(REDIS_URL, { keyPrefix }),
      ];
      opened.push(...pair);
      return pair;
    },
  },
];

const SINK = 'webhook:https://siem.example.com/hook';

describe.each(kinds)('audit outbox ($name)', (kind) => {
  it('holds what transitions record, in the same step, from when the sink was opened', async () => {
    const [store] = kind.open();
    const outbox = store.auditOutbox();
    await store.create(buildChangeRequest({ id: 'before' }));
    await outbox.openSink(SINK);
    await outbox.openSink(SINK); // opening again moves nothing
    const request = buildChangeRequest({ id: 'after' });
    await store.create(request);
    await store.transition(request.id, approve());
    await store.transition(request.id, markApplied());
    const { records, lost } = await outbox.next(SINK, 10);
    expect(lost).toBe(0);
    expect(records.map((r) => [r.fields.changeId, r.fields.action])).toEqual([
      ['after', 'requested'],
      ['after', 'approved'],
      ['after', 'applied'],
    ]);
    expect(records[2]?.fields).toMatchObject({ apiRequestId: 'req-42', actorId: 'U-approver', channelId: 'C-ops' });
    expect(await outbox.queued(SINK)).toBe(3);
  });

  it('hands back what was not acknowledged, first, to whoever reads next; each sink has its own cursor', async () => {
    const [a, b] = kind.open();
    await a.auditOutbox().openSink(SINK);
    await a.auditOutbox().openSink('file:/tmp/other.jsonl');
    for (const n of [1, 2, 3, 4]) await a.auditOutbox().record({ action: 'policy-reloaded', summary: `r${n}` });
    const first = await a.auditOutbox().next(SINK, 2);
    await a.auditOutbox().acknowledge(SINK, first.records[0]?.id ?? '');
    // Replica a "dies" with r2 handed out: b gets r2 again, then r3, r4.
    const again = await b.auditOutbox().next(SINK, 10);
    expect(again.records.map((r) => r.fields.summary)[0]).toBe('r2');
    for (const record of again.records) await b.auditOutbox().acknowledge(SINK, record.id);
    const seen = [...first.records.slice(0, 1), ...again.records].map((r) => r.fields.summary);
    expect([...new Set(seen)]).toEqual(['r1', 'r2', 'r3', 'r4']);
    expect(await b.auditOutbox().queued(SINK)).toBe(0);
    expect((await b.auditOutbox().next(SINK, 10)).records).toEqual([]);
    expect(await a.auditOutbox().queued('file:/tmp/other.jsonl')).toBe(4);
  });

  it('lets one replica hold a sink at a time, renewing its own lease', async () => {
    const [a, b] = kind.open();
    expect(await a.auditOutbox().holdSink(SINK, 'replica-a', 5_000)).toBe(true);
    expect(await b.auditOutbox().holdSink(SINK, 'replica-b', 5_000)).toBe(false);
    expect(await a.auditOutbox().holdSink(SINK, 'replica-a', 5_000)).toBe(true);
    await b.auditOutbox().releaseSink(SINK, 'replica-b'); // not its lease: nothing happens
    expect(await b.auditOutbox().holdSink(SINK, 'replica-b', 5_000)).toBe(false);
    await a.auditOutbox().releaseSink(SINK, 'replica-a');
    expect(await b.auditOutbox().holdSink(SINK, 'replica-b', 5_000)).toBe(true);
  });

  it('skips the oldest undelivered entries down to a bound', async () => {
    const [store] = kind.open();
    const outbox = store.auditOutbox();
    await outbox.openSink(SINK);
    for (let n = 1; n <= 6; n++) await outbox.record({ action: 'x', summary: `e${n}` });
    await outbox.next(SINK, 2); // e1, e2 handed out, not acknowledged
    expect(await outbox.skipOldest(SINK, 3)).toBe(3);
    expect(await outbox.queued(SINK)).toBe(3);
    expect((await outbox.next(SINK, 10)).records.map((r) => r.fields.summary)).toEqual(['e4', 'e5', 'e6']);
  });
});

/** A Redis store of its own (cleaned up after) and its outbox with SINK open. */
async function redisOutbox() {
  const keyPrefix = randomKeyPrefix();
  prefixes.push(keyPrefix);
  const store = new RedisChangeStore(REDIS_URL, { keyPrefix });
  opened.push(store);
  const outbox = store.auditOutbox();
  await outbox.openSink(SINK);
  return { keyPrefix, store, outbox };
}

describe('audit outbox (Redis) and the retention', () => {
  it('counts entries trimmed before a sink read them as lost, then carries on exactly', async () => {
    const { keyPrefix, outbox } = await redisOutbox();
    for (let n = 1; n <= 5; n++) await outbox.record({ action: 'x', summary: `e${n}` });
    const redis = new Redis(REDIS_URL);
    try {
      await redis.xtrim(changeKeys(keyPrefix).audit, 'MAXLEN', 2);
    } finally {
      await redis.quit();
    }
    const { records, lost } = await outbox.next(SINK, 10);
    expect(lost).toBe(3);
    expect(records.map((r) => r.fields.summary)).toEqual(['e4', 'e5']);
    for (const record of records) await outbox.acknowledge(SINK, record.id);
    expect(await outbox.queued(SINK)).toBe(0);
    await outbox.record({ action: 'x', summary: 'e6' });
    expect(await outbox.queued(SINK)).toBe(1);
    expect(await outbox.next(SINK, 10)).toMatchObject({ lost: 0, records: [{ fields: { summary: 'e6' } }] });
  });

  it('after the stream expired (a whole retention without an entry), the first entries of the new one are sent', async () => {
    const { keyPrefix, outbox } = await redisOutbox();
    await outbox.record({ action: 'x', summary: 'old' });
    for (const record of (await outbox.next(SINK, 10)).records) await outbox.acknowledge(SINK, record.id);
    const redis = new Redis(REDIS_URL);
    try {
      // What PEXPIRE does after AUDIT_RETENTION_DAYS of silence: the stream goes, its groups with it.
      await redis.del(changeKeys(keyPrefix).audit);
    } finally {
      await redis.quit();
    }
    // The next entry creates a new stream, with no group yet, before the delivery looks again.
    await outbox.record({ action: 'x', summary: 'first after the silence' });
    const seen = [...(await outbox.next(SINK, 10)).records, ...(await outbox.next(SINK, 10)).records];
    expect(seen.map((r) => r.fields.summary)).toEqual(['first after the silence']);
  });
});
