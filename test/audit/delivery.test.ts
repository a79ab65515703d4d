/**
 * Audit export delivery against the real outboxes (Redis and memory): a sink that is down and
 * comes back receives every event, once, in order; two replicas deliver each event once; the
 * outbox bound skips the oldest, loudly. Nothing sleeps: each test awaits what the receiver saw.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AuditDelivery, type AuditDeliveryOptions } from '../../src/audit/delivery.js';
import { webhookSink } from '../../src/audit-sinks/webhook.js';
import { parseAuditSinks } from '../../src/core/audit/export.js';
import type { AuditOutbox, ChangeStore } from '../../src/ports/index.js';
import { MemoryChangeStore, RedisChangeStore } from '../../src/store/index.js';
import { startAuditReceiver, type AuditReceiver } from '../support/audit-receiver.js';
import { deleteKeysWithPrefix, randomKeyPrefix, REDIS_URL } from '../support/redis.js';

const SECRET = 'receiver-shared-secret-0123456789';
const ORG = '11111111-2222-4333-8444-555555555555';

interface Replica {
  store: ChangeStore;
  outbox: AuditOutbox;
}

const kinds: Array<{ name: string; replicas(): Replica[] }> = [
  {
    name: 'Redis',
    replicas() {
      const prefix = randomKeyPrefix();
      prefixes.push(prefix);
      return [0, 1].map(() => {
        const store = new RedisChangeStore(REDIS_URL, { keyPrefix: prefix });
        return { store, outbox: store.auditOutbox() };
      });
    },
  },
  {
    name: 'memory',
    replicas() {
      const store = new MemoryChangeStore();
      return [0, 1].map(() => ({ store, outbox: store.auditOutbox() }));
    },
  },
];

const prefixes: string[] = [];
let receiver: AuditReceiver;
const running: AuditDelivery[] = [];
const stores: ChangeStore[] = [];

beforeAll(async () => {
  receiver = await startAuditReceiver(SECRET);
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((delivery) => delivery.stop()));
  await Promise.all(stores.splice(0).map((store) => store.close()));
  receiver.accepted.length = 0;
  receiver.refused = 0;
  receiver.down = false;
});
afterAll(async () => {
  await receiver.close();
  await Promise.all(prefixes.map((prefix) => deleteKeysWithPrefix(prefix)));
});

function sinkSpec() {
  const [spec] = parseAuditSinks(`webhook:${receiver.url}`).sinks;
  if (spec?.kind !== 'webhook') throw new Error('no webhook sink');
  return spec;
}

function deliver(outbox: AuditOutbox, owner: string, extra: Partial<AuditDeliveryOptions> = {}) {
  const spec = sinkSpec();
  const logs: string[] = [];
  const counts = { delivered: 0, failed: 0, dropped: 0, queued: 0 };
  const delivery = new AuditDelivery({
    outbox,
    sink: webhookSink({ url: spec.url, label: spec.label, secret: SECRET }),
    sinkKey: spec.key,
    owner,
    organizationId: ORG,
    outboxMax: 1_000,
    log: {
      debug: () => undefined,
      info: (line: string) => logs.push(`info ${line}`),
      warn: (line: string) => logs.push(`warn ${line}`),
      error: (line: string) => logs.push(`error ${line}`),
    },
    observe: {
      queued: (_sink, count) => (counts.queued = count),
      delivered: () => (counts.delivered += 1),
      failed: () => (counts.failed += 1),
      dropped: (_sink, count) => (counts.dropped += count),
    },
    pollMs: 10,
    retryBaseMs: 5,
    retryMaxMs: 40,
    leaseMs: 2_000,
    ...extra,
  });
  running.push(delivery);
  return { delivery, logs, counts };
}

async function recordEvents(outbox: AuditOutbox, from: number, count: number): Promise<void> {
  for (let n = from; n < from + count; n++) {
    await outbox.record({
      at: String(Date.UTC(2026, 0, 1) + n),
      action: 'approved',
      actorId: 'U1',
      summary: `event ${n}`,
    });
  }
}

const summaries = () => receiver.accepted.map((event) => event.summary);
const numbered = (from: number, count: number) => Array.from({ length: count }, (_, i) => `event ${from + i}`);

describe.each(kinds)('audit delivery over the $name outbox', (kind) => {
  it('a sink that is down and comes back receives every event once, in order', async () => {
    const [replica] = kind.replicas();
    if (!replica) throw new Error('no replica');
    stores.push(replica.store);
    await replica.outbox.openSink(sinkSpec().key);
    receiver.down = true;
    await recordEvents(replica.outbox, 0, 20);
    const { delivery, counts, logs } = deliver(replica.outbox, 'replica-a');
    delivery.start();
    await receiver.until(() => receiver.refused >= 3);
    await recordEvents(replica.outbox, 20, 10);
    receiver.down = false;
    await receiver.until(() => receiver.accepted.length >= 30);

    expect(summaries()).toEqual(numbered(0, 30));
    expect(new Set(receiver.accepted.map((event) => event.id)).size).toBe(30);
    expect(receiver.accepted[0]).toMatchObject({ type: 'approved', actor: 'U1', organization: ORG });
    expect(counts.failed).toBeGreaterThanOrEqual(3);
    expect(counts.dropped).toBe(0);
    // Said once when it started failing and once when it came back, not at every attempt.
    expect(logs.filter((line) => line.startsWith('warn') && line.includes('failed'))).toHaveLength(1);
    expect(logs.some((line) => line.includes('works again'))).toBe(true);
    expect(logs.join('\n')).not.toContain('secret-token-in-path');
    // Once stopped, the round in flight has acknowledged what the receiver accepted.
    await delivery.stop();
    expect(counts.delivered).toBe(30);
    expect(await replica.outbox.queued(sinkSpec().key)).toBe(0);
  });

  it('two replicas delivering at once send each event once, in order, and the other carries on when one stops', async () => {
    const [a, b] = kind.replicas();
    if (!a || !b) throw new Error('no replicas');
    stores.push(a.store, ...(b.store === a.store ? [] : [b.store]));
    await a.outbox.openSink(sinkSpec().key);
    const first = deliver(a.outbox, 'replica-a');
    const second = deliver(b.outbox, 'replica-b');
    first.delivery.start();
    second.delivery.start();
    await Promise.all([recordEvents(a.outbox, 0, 25), recordEvents(b.outbox, 25, 25)]);
    await receiver.until(() => receiver.accepted.length >= 50);
    expect([...summaries()].sort()).toEqual([...numbered(0, 50)].sort());
    expect(new Set(receiver.accepted.map((event) => event.id)).size).toBe(50);
    // In the order they were recorded (the stream's order), whichever replica sent them.
    const ids = receiver.accepted.map((event) => event.id);
    expect(ids).toEqual([...ids].sort(byStreamId));

    // The leader stops (giving its lease back); the other takes over and sends what comes next.
    const leader = first.counts.delivered > 0 ? first : second;
    await leader.delivery.stop();
    await recordEvents(a.outbox, 50, 5);
    await receiver.until(() => receiver.accepted.length >= 55);
    expect(summaries().slice(50)).toEqual(numbered(50, 5));
  });

  it('past AUDIT_OUTBOX_MAX the oldest events are skipped, loudly; close to it, a warning', async () => {
    const [replica] = kind.replicas();
    if (!replica) throw new Error('no replica');
    stores.push(replica.store);
    await replica.outbox.openSink(sinkSpec().key);
    receiver.down = true;
    await recordEvents(replica.outbox, 0, 9);
    const { delivery, counts, logs } = deliver(replica.outbox, 'replica-a', { outboxMax: 10 });
    delivery.start();
    await receiver.until(() => receiver.refused >= 1);
    expect(logs.some((line) => line.startsWith('warn') && line.includes('close to its bound'))).toBe(true);
    await recordEvents(replica.outbox, 9, 6);
    const refusedBefore = receiver.refused;
    await receiver.until(() => receiver.refused >= refusedBefore + 2);
    expect(counts.dropped).toBe(5);
    // Said in the logs, in as many steps as the worker saw the events arrive.
    const saidDropped = logs.map((line) => /^error AUDIT EVENTS DROPPED: (\d+)/.exec(line)?.[1]).filter(Boolean);
    expect(saidDropped.reduce((sum, n) => sum + Number(n), 0)).toBe(5);
    receiver.down = false;
    await receiver.until(() => receiver.accepted.length >= 10);
    expect(summaries()).toEqual(numbered(5, 10));
  });
});

function byStreamId(a: string, b: string): number {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am - bm || as - bs;
}
