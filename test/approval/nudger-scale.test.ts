/**
 * Reminders at scale: with 1,000 requests waiting, a look of the nudger reads only the requests
 * whose reminder is due (by score), the same as with 10 waiting; two replicas looking at once say
 * each reminder once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Nudger } from '../../src/approval/nudger.js';
import type { ChangeStore } from '../../src/ports/change-store.js';
import { RedisChangeStore } from '../../src/store/index.js';
import { changeRequest, mustPlan, service } from '../core/fixtures.js';
import { recordingLog } from '../support/in-process.js';
import { RecordingMessenger } from '../support/recording-messenger.js';
import { deleteKeysWithPrefix, randomKeyPrefix, REDIS_URL } from '../support/redis.js';

const MINUTE = 60_000;
/** Real time: the store keeps a request until its expiry plus retention, on the wall clock. */
const NOW = Date.now();
const plan = mustPlan(service(), { name: 'orders-main' });
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Counts the store's reads of requests (one per request read), whatever method reads them. */
function countingReads(store: ChangeStore) {
  const reads = { requests: 0 };
  const counted = new Proxy(store, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const result: unknown = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (name === 'get') reads.requests += 1;
        if (name === 'listOpen' && Array.isArray(result)) reads.requests += result.length;
        return result;
      };
    },
  });
  return { store: counted, reads };
}

/** `waiting` posted requests, the first `due` of them old enough for their first reminder (30 min) at NOW + 1 min. */
async function waitingRequests(waiting: number, due: number) {
  const keyPrefix = randomKeyPrefix();
  const [one, two] = [0, 1].map(() => new RedisChangeStore(REDIS_URL, { keyPrefix })) as [
    RedisChangeStore,
    RedisChangeStore,
  ];
  cleanups.push(async () => {
    await deleteKeysWithPrefix(keyPrefix);
    await Promise.all([one.close(), two.close()]);
  });
  await Promise.all(
    Array.from({ length: waiting }, async (_, i) => {
      const createdAt = i < due ? NOW - 29 * MINUTE : NOW;
      const id = `CR-${String(i).padStart(10, '0')}`;
      await one.create(changeRequest(plan, { id, createdAt, expiresAt: createdAt + 24 * 60 * MINUTE }));
      await one.setMessageTs(id, `1700000000.${String(i).padStart(6, '0')}`);
    }),
  );
  const clock = { now: NOW };
  const messenger = new RecordingMessenger();
  const replica = (store: ChangeStore) => {
    const counted = countingReads(store);
    const nudger = new Nudger({
      store: counted.store,
      messenger,
      defaults: { approvers: [], allowSelfApproval: false },
      logger: recordingLog(),
      now: () => clock.now,
    });
    return { nudger, reads: counted.reads };
  };
  return { clock, messenger, replicas: [replica(one), replica(two)] as const };
}

async function readsPerLook(waiting: number) {
  const { clock, messenger, replicas } = await waitingRequests(waiting, 10);
  const [a, b] = replicas;
  // The first looks (at start) read every waiting request once and schedule each.
  for (let look = 0; look < 3 && a.reads.requests < waiting; look++) await a.nudger.tick();
  expect(a.reads.requests).toBe(waiting);
  await b.nudger.tick();
  const quiet = { a: a.reads.requests, b: b.reads.requests };
  clock.now = NOW + 30 * 1_000;
  await Promise.all([a.nudger.tick(), b.nudger.tick()]);
  const nothingDue = a.reads.requests - quiet.a + (b.reads.requests - quiet.b);
  // The 10 old ones come due; both replicas look at once.
  clock.now = NOW + 2 * MINUTE;
  const before = a.reads.requests + b.reads.requests;
  await Promise.all([a.nudger.tick(), b.nudger.tick()]);
  const tenDue = a.reads.requests + b.reads.requests - before;
  const reminders = messenger.sent.filter((s) => s.kind === 'post').length;
  return { nothingDue, tenDue, reminders };
}

describe('the nudger at scale', () => {
  it('reads only the requests due, by score: a look costs the same with 1,000 waiting as with 10', async () => {
    const few = await readsPerLook(10);
    const many = await readsPerLook(1_000);
    expect(many.nothingDue).toBe(0);
    expect(few.nothingDue).toBe(0);
    // Each replica reads the 10 due ones (at most), whatever else waits.
    expect(many.tenDue).toBeLessThanOrEqual(20);
    expect(many.tenDue).toBe(few.tenDue);
    // Each of the 10 is reminded once, though both replicas looked at the same time.
    expect(many.reminders).toBe(10);
    expect(few.reminders).toBe(10);
  }, 20_000);
});
