import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FairThrottle, ThrottleBusyError, type ThrottleTicket } from '../../src/cloud/throttle.js';

const read = (person: string): ThrottleTicket => ({ priority: 'command', person });
const background = (job: string): ThrottleTicket => ({ priority: 'background', person: job });
const approval: ThrottleTicket = { priority: 'approval', person: 'approval' };

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** One request per second; the order in which waiters were let through. */
function oneASecond(options: { maxQueue?: number; maxPerPerson?: number; maxWaitMs?: number } = {}) {
  const throttle = new FairThrottle({ limit: 1, windowMs: 1_000, maxWaitMs: 600_000, ...options });
  const order: string[] = [];
  const take = (ticket: ThrottleTicket, label: string) =>
    throttle.acquire(ticket).then(
      () => void order.push(label),
      () => void order.push(`${label} refused`),
    );
  return { throttle, order, take };
}

describe('FairThrottle', () => {
  it("serves a colleague right after the flooder's current turn, not after the whole flood", async () => {
    const { order, take } = oneASecond();
    const all = [0, 1, 2, 3, 4].map((i) => take(read('flooder'), `f${i}`));
    all.push(take(read('colleague'), 'c1'));
    await vi.advanceTimersByTimeAsync(10_000);
    await Promise.all(all);
    expect(order).toStrictEqual(['f0', 'c1', 'f1', 'f2', 'f3', 'f4']);
  });

  it('alternates between people who both have reads waiting', async () => {
    const { order, take } = oneASecond();
    const all = [...[1, 2, 3].map((i) => take(read('a'), `a${i}`)), ...[1, 2, 3].map((i) => take(read('b'), `b${i}`))];
    await vi.advanceTimersByTimeAsync(10_000);
    await Promise.all(all);
    expect(order).toStrictEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'b3']);
  });

  it('lets approvals go before every waiting read', async () => {
    const { order, take } = oneASecond();
    const all = [0, 1, 2, 3].map((i) => take(read('flooder'), `f${i}`));
    all.push(take(approval, 'approve'));
    await vi.advanceTimersByTimeAsync(10_000);
    await Promise.all(all);
    expect(order).toStrictEqual(['f0', 'approve', 'f1', 'f2', 'f3']);
  });

  it('refuses a person who already has their share waiting, and anyone once the queue is full', async () => {
    const { throttle, order, take } = oneASecond({ maxPerPerson: 2, maxQueue: 3 });
    const all = [take(read('a'), 'a0'), take(read('a'), 'a1'), take(read('a'), 'a2'), take(read('a'), 'a3')];
    all.push(take(read('b'), 'b1'), take(read('c'), 'c1'), take(approval, 'approve'));
    await vi.advanceTimersByTimeAsync(0);
    expect(order).toStrictEqual(['a0', 'a3 refused', 'c1 refused']);
    expect(throttle.waiting).toBe(4);
    await vi.advanceTimersByTimeAsync(10_000);
    await Promise.all(all);
    expect(order.slice(3)).toStrictEqual(['approve', 'b1', 'a1', 'a2']);
  });

  it('gives up on a read that waits past the limit and says when the budget frees up', async () => {
    const throttle = new FairThrottle({ limit: 1, windowMs: 60_000, maxWaitMs: 5_000 });
    await throttle.acquire(read('a'));
    const waiting = throttle.acquire(read('b')).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(5_000);
    const error = await waiting;
    expect(error).toBeInstanceOf(ThrottleBusyError);
    expect((error as ThrottleBusyError).retryAfterMs).toBe(55_000);
    expect(throttle.waiting).toBe(0);
  });

  it('keeps part of every window for approvals, so a click does not wait for the window to turn', async () => {
    const throttle = new FairThrottle({ limit: 10, windowMs: 10_000, approvalReserve: 3, maxWaitMs: 60_000 });
    const order: string[] = [];
    const reads = Array.from({ length: 9 }, (_, i) =>
      throttle.acquire(read('flooder')).then(() => void order.push(`r${i}`)),
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(order).toHaveLength(7);
    await throttle.acquire(approval);
    await throttle.acquire(approval);
    await throttle.acquire(approval);
    expect(order).toHaveLength(7);
    await vi.advanceTimersByTimeAsync(10_000);
    await Promise.all(reads);
    expect(order).toHaveLength(9);
  });

  it('never refuses or times out an approval', async () => {
    const throttle = new FairThrottle({ limit: 1, windowMs: 60_000, maxWaitMs: 5_000, maxQueue: 0 });
    await throttle.acquire(approval);
    let done = false;
    const second = throttle.acquire(approval).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(59_000);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    await second;
    expect(done).toBe(true);
  });

  it("serves a person's read before every queued background read, and an approval before both", async () => {
    const { order, take } = oneASecond();
    const all = [0, 1, 2].map((i) => take(background('summaries'), `s${i}`));
    all.push(take(background('drift'), 'd0'), take(read('alice'), 'alice'), take(approval, 'approve'));
    await vi.advanceTimersByTimeAsync(10_000);
    await Promise.all(all);
    expect(order).toStrictEqual(['s0', 'approve', 'alice', 'd0', 's1', 's2']);
  });

  it('keeps part of every window for people, so a command does not wait for background reads already sent', async () => {
    const throttle = new FairThrottle({ limit: 10, windowMs: 10_000, approvalReserve: 3, commandReserve: 2 });
    const started: string[] = [];
    const flood = Array.from({ length: 30 }, (_, i) =>
      throttle.acquire(background(`job${i % 3}`)).then(
        () => void started.push('background'),
        () => undefined,
      ),
    );
    await vi.advanceTimersByTimeAsync(100);
    expect(started).toHaveLength(5);
    // Two commands start at once, in the requests background reads may not use...
    await throttle.acquire(read('alice'));
    await throttle.acquire(read('bob'));
    // ...and the approvals' three are still there after them.
    for (let i = 0; i < 3; i += 1) await throttle.acquire(approval);
    expect(started).toHaveLength(5);
    await vi.advanceTimersByTimeAsync(30_000);
    await Promise.all(flood);
  });

  it('refuses background reads past their queue without refusing a person', async () => {
    const { throttle, order, take } = oneASecond({ maxQueue: 2 });
    const all = [take(background('a'), 'a0'), take(background('b'), 'b0'), take(background('c'), 'c0')];
    all.push(take(background('d'), 'd0'), take(read('alice'), 'alice'));
    await vi.advanceTimersByTimeAsync(0);
    expect(order).toStrictEqual(['a0', 'd0 refused']);
    expect(throttle.waiting).toBe(3);
    await vi.advanceTimersByTimeAsync(10_000);
    await Promise.all(all);
    expect(order.slice(2)).toStrictEqual(['alice', 'b0', 'c0']);
  });

  it('moves a waiting background read ahead when a person joins it', async () => {
    const { throttle, order, take } = oneASecond();
    const list = background('summaries');
    const all = [take(background('drift'), 'd0'), take(background('drift'), 'd1'), take(list, 'list')];
    await vi.advanceTimersByTimeAsync(0);
    throttle.promote(list, read('alice'));
    await vi.advanceTimersByTimeAsync(10_000);
    await Promise.all(all);
    expect(order).toStrictEqual(['d0', 'list', 'd1']);
    // A read already sent, or a promotion downwards, changes nothing.
    throttle.promote(list, background('drift'));
    expect(list).toStrictEqual({ priority: 'command', person: 'alice' });
  });
});
