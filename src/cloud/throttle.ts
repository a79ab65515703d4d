/**
 * The client-side share of the API's budget (10 requests per 10 s per key, shared by every Slack
 * user of the bot), handed out fairly and within bounds:
 * - approvals (their re-reads and the update) go first, whoever else is waiting, and a few
 *   requests of every window are kept for them, so a click never waits for the window to turn;
 * - other reads are served round-robin between the people (or schedules) asking, so one person's
 *   flood delays a colleague by at most one turn, not by the whole flood;
 * - a person can queue only a few reads, the queue as a whole is bounded, and a read that would
 *   wait longer than `maxWaitMs` is refused with the time to try again, never left hanging.
 */
import type { ReadPriority } from '../ports/service-directory.js';

export type Priority = ReadPriority;

export interface ThrottleTicket {
  priority: Priority;
  /** Who the read is for (a Slack user id, a schedule): the unit of fairness. */
  person: string;
}

export interface ThrottleOptions {
  limit: number;
  windowMs: number;
  /** Requests of each window that only approvals may use (default 3, at most limit - 1). */
  approvalReserve?: number;
  /** Reads waiting at once, over everyone; approvals are never refused. */
  maxQueue?: number;
  /** Reads one person may have waiting at once. */
  maxPerPerson?: number;
  /** A read not started within this is refused (approvals wait as long as it takes). */
  maxWaitMs?: number;
  now?: () => number;
}

/** The budget is taken: the read was not sent. `retryAfterMs` is an honest guess of when it frees up. */
export class ThrottleBusyError extends Error {
  override readonly name = 'ThrottleBusyError';
  constructor(readonly retryAfterMs: number) {
    super(`the API budget is busy; try again in ${Math.ceil(retryAfterMs / 1000)} s`);
  }
}

interface Waiter {
  ticket: ThrottleTicket;
  resolve: () => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout | undefined;
}

const REMEMBERED_PEOPLE = 1_000;

export class FairThrottle {
  private readonly starts: number[] = [];
  private readonly approvals: Waiter[] = [];
  /** Waiting reads per person, in the order people started waiting. */
  private readonly lanes = new Map<string, Waiter[]>();
  /** When each person was last served (a sequence number): who waited longest since goes next. */
  private readonly lastServed = new Map<string, number>();
  private served = 0;
  private queuedReads = 0;
  private wakeTimer: NodeJS.Timeout | undefined;
  private readonly now: () => number;
  private readonly maxQueue: number;
  private readonly maxPerPerson: number;
  private readonly maxWaitMs: number;
  private readonly approvalReserve: number;

  constructor(private readonly options: ThrottleOptions) {
    this.now = options.now ?? Date.now;
    this.maxQueue = options.maxQueue ?? 50;
    this.maxPerPerson = options.maxPerPerson ?? 5;
    this.maxWaitMs = options.maxWaitMs ?? 10_000;
    this.approvalReserve = Math.max(0, Math.min(options.approvalReserve ?? 3, options.limit - 1));
  }

  acquire(ticket: ThrottleTicket): Promise<void> {
    if (ticket.priority === 'read') {
      const lane = this.lanes.get(ticket.person) ?? [];
      if (lane.length >= this.maxPerPerson || this.queuedReads >= this.maxQueue) {
        return Promise.reject(new ThrottleBusyError(this.estimatedWaitMs(this.queuedReads + 1)));
      }
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { ticket, resolve, reject, timer: undefined };
      if (ticket.priority === 'approval') this.approvals.push(waiter);
      else this.enqueueRead(waiter);
      this.pump();
    });
  }

  /** Reads waiting now (for tests and logs). */
  get waiting(): number {
    return this.queuedReads + this.approvals.length;
  }

  private enqueueRead(waiter: Waiter): void {
    const { person } = waiter.ticket;
    const lane = this.lanes.get(person);
    if (lane) lane.push(waiter);
    else this.lanes.set(person, [waiter]);
    this.queuedReads += 1;
    waiter.timer = setTimeout(() => this.giveUp(waiter), this.maxWaitMs);
    waiter.timer.unref();
  }

  private giveUp(waiter: Waiter): void {
    if (!this.removeRead(waiter)) return;
    waiter.reject(new ThrottleBusyError(this.estimatedWaitMs(this.queuedReads + 1)));
  }

  private removeRead(waiter: Waiter): boolean {
    const lane = this.lanes.get(waiter.ticket.person);
    const index = lane?.indexOf(waiter) ?? -1;
    if (!lane || index === -1) return false;
    lane.splice(index, 1);
    this.queuedReads -= 1;
    if (lane.length === 0) this.lanes.delete(waiter.ticket.person);
    if (waiter.timer) clearTimeout(waiter.timer);
    return true;
  }

  /** Starts every waiter the window has room for, approvals first, then one read per person in turn. */
  private pump(): void {
    for (;;) {
      const next = this.approvals[0] ?? this.nextRead();
      if (!next) return;
      if (!this.takeSlot(next.ticket.priority === 'approval' ? 0 : this.approvalReserve)) {
        this.wakeWhenSlotFrees();
        return;
      }
      if (next.ticket.priority === 'approval') this.approvals.shift();
      else this.serveRead(next);
      next.resolve();
    }
  }

  /** The first read of the person served least recently (never served counts as longest ago). */
  private nextRead(): Waiter | undefined {
    let next: Waiter | undefined;
    let nextServed = Infinity;
    for (const [person, lane] of this.lanes) {
      const served = this.lastServed.get(person) ?? -1;
      if (served < nextServed) [next, nextServed] = [lane[0], served];
    }
    return next;
  }

  private takeSlot(reserved: number): boolean {
    const now = this.now();
    while (this.starts.length > 0 && (this.starts[0] ?? 0) <= now - this.options.windowMs) this.starts.shift();
    if (this.starts.length >= this.options.limit - reserved) return false;
    this.starts.push(now);
    return true;
  }

  /** The person just served goes to the back of the round. */
  private serveRead(waiter: Waiter): void {
    this.removeRead(waiter);
    const { person } = waiter.ticket;
    this.served += 1;
    this.lastServed.delete(person);
    this.lastServed.set(person, this.served);
    // Only recent turns matter for fairness; forget the oldest so the map stays small.
    if (this.lastServed.size > REMEMBERED_PEOPLE) {
      const oldest = this.lastServed.keys().next().value;
      if (oldest !== undefined) this.lastServed.delete(oldest);
    }
  }

  private wakeWhenSlotFrees(): void {
    if (this.wakeTimer) return;
    const wait = Math.max(1, (this.starts[0] ?? this.now()) + this.options.windowMs - this.now());
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      this.pump();
    }, wait);
    this.wakeTimer.unref();
  }

  /** Time until `position` more requests could start, at `limit` per window. */
  private estimatedWaitMs(position: number): number {
    const now = this.now();
    const active = this.starts.filter((start) => start > now - this.options.windowMs);
    const forReads = this.options.limit - this.approvalReserve;
    const free = forReads - active.length;
    if (position <= free) return 1_000;
    const windows = Math.ceil((position - free) / forReads);
    const firstFree = (active[0] ?? now) + this.options.windowMs - now;
    return Math.max(1_000, firstFree + (windows - 1) * this.options.windowMs);
  }
}
