import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Client-side sliding window: at most `limit` requests start in any `windowMs`. The real API
 * allows 10 requests per 10 s per key, shared by every Slack user of the bot, so we queue rather
 * than collect 429s. Waiters are served in arrival order.
 */
export class SlidingWindowLimiter {
  private readonly starts: number[] = [];
  private queue: Promise<void> = Promise.resolve();
  /** Callers waiting for their turn (the throttle queue's length, for metrics). */
  waiting = 0;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  acquire(): Promise<void> {
    this.waiting += 1;
    const turn = this.queue.then(() => this.waitForSlot()).finally(() => {
      this.waiting -= 1;
    });
    this.queue = turn;
    return turn;
  }

  private async waitForSlot(): Promise<void> {
    for (;;) {
      const now = Date.now();
      while (this.starts.length > 0 && (this.starts[0] ?? 0) <= now - this.windowMs) this.starts.shift();
      if (this.starts.length < this.limit) {
        this.starts.push(now);
        return;
      }
      await sleep((this.starts[0] ?? now) + this.windowMs - now);
    }
  }
}
