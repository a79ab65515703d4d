/**
 * Acknowledgements first. Every listener acks before working (`await ack(); ...work...`); when the
 * work after the ack (reading, rendering, the response_url post) ran right away, a burst of
 * requests arriving together was acked one after the other's work, so the last ack of the burst
 * waited for all the work before it. Here `await ack()` resolves only when the work queue gives the
 * request a turn, and turns are handed out from setImmediate: Node runs those after the poll phase,
 * where requests that have arrived are read, verified and acked. So pending acks always go before
 * post-ack work, and at most MAX_RUNNING pieces of work run at once (the others wait their turn,
 * in arrival order).
 *
 * It wraps App.processEvent, the one door every Slack request or Socket Mode envelope comes in
 * by, so listeners need no change, and it times each ack on the way (clickhouse_bot_ack_seconds).
 */
import type { App, ReceiverEvent } from '@slack/bolt';

/** Work items started per turn of the event loop, before incoming requests get their turn again. */
const STARTS_PER_TURN = 4;
/** Work running at once (most of it waits on I/O: the API, Redis, Slack). */
const MAX_RUNNING = 64;

export class WorkQueue {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private scheduled = false;

  constructor(private readonly maxRunning = MAX_RUNNING) {}

  /** Pieces of work waiting for a turn. */
  get length(): number {
    return this.waiting.length;
  }

  /** Resolves with a release function when the caller may run; call it when the work is done. */
  turn(): Promise<() => void> {
    return new Promise((resolve) => {
      this.waiting.push(() => {
        this.running += 1;
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          this.running -= 1;
          this.schedule();
        });
      });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0 || this.running >= this.maxRunning) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      for (let started = 0; started < STARTS_PER_TURN && this.running < this.maxRunning; started += 1) {
        const next = this.waiting.shift();
        if (!next) break;
        next();
      }
      this.schedule();
    });
  }
}

/** Makes `app` ack before any post-ack work runs; `onAck` gets each ack's latency in seconds. */
export function serveAcksFirst(app: App, queue: WorkQueue, onAck: (seconds: number) => void = () => undefined): void {
  const processEvent = app.processEvent.bind(app);
  app.processEvent = async (event: ReceiverEvent): Promise<void> => {
    const received = performance.now();
    let release: (() => void) | undefined;
    const ack: ReceiverEvent['ack'] = async (response) => {
      await event.ack(response);
      onAck((performance.now() - received) / 1000);
      release = await queue.turn();
    };
    try {
      await processEvent({ ...event, ack });
    } finally {
      release?.();
    }
  };
}
