/**
 * The client-side share of the API's budget (10 requests per 10 s per key, shared by every Slack
 * user of the bot and every background job), handed out by who is waiting and within bounds:
 * - approvals (their re-reads and the update) go first, whoever else is waiting, and a few
 *   requests of every window are kept for them, so a click never waits for the window to turn;
 * - a person's reads (a command, the read at filing, a click) go next, and a few more requests of
 *   every window are kept for them, so a command never waits behind background reads: neither
 *   behind those queued (it goes first) nor behind those already sent (they may not use the
 *   requests kept for people);
 * - background reads (summaries, drift, reminders, followers, cost alerts, and the backups,
 *   metrics and schedules reads to come) get what is left;
 * - within a lane, reads are served round-robin between the people (or jobs) asking, so one
 *   person's flood delays a colleague by at most one turn, not by the whole flood;
 * - a person can queue only a few reads, each lane's queue is bounded, and a read that would
 *   wait longer than `maxWaitMs` is refused with the time to try again, never left hanging.
 */
import type { ReadPriority } from '../ports/service-directory.js';

export type Priority = ReadPriority;

export interface ThrottleTicket {
  priority: Priority;
  /** Who the read is for (a Slack user id, a schedule, a job): the unit of fairness. */
  person: string;
}

export interface ThrottleOptions {
  limit: number;
  windowMs: number;
  /** Requests of each window that only approvals may use (default 3, at most limit - 1). */
  approvalReserve?: number;
  /**
   * Requests of each window, beyond the approvals' reserve, that background reads may not use:
   * kept for people's commands (default 2; at most what leaves background reads one request).
   */
  commandReserve?: number;
  /** Reads waiting at once in each lane (people's, background); approvals are never refused. */
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

type ReadPriorityOfLane = Exclude<Priority, 'approval'>;

/** Only recent turns matter for fairness; a lane forgets the oldest beyond this many people. */
const REMEMBERED_PEOPLE = 1_000;

/** How far ahead each priority goes: a ticket may be moved to a higher one, never to a lower. */
const RANK: Record<Priority, number> = { approval: 2, command: 1, background: 0 };

/** The waiting reads of one priority, served round-robin between the people asking. */
class ReadLane {
  /** Waiting reads per person, in the order people started waiting. */
  private readonly byPerson = new Map<string, Waiter[]>();
  /** When each person was last served (a sequence number): who waited longest since goes next. */
  private readonly lastServed = new Map<string, number>();
  private turns = 0;
  private waiting = 0;

  /** `reserved`: requests of each window this lane may not use (kept for higher lanes). */
  constructor(readonly reserved: number) {}

  get length(): number {
    return this.waiting;
  }

  waitingOf(person: string): number {
    return this.byPerson.get(person)?.length ?? 0;
  }

  push(waiter: Waiter): void {
    const { person } = waiter.ticket;
    const queue = this.byPerson.get(person);
    if (queue) queue.push(waiter);
    else this.byPerson.set(person, [waiter]);
    this.waiting += 1;
  }

  remove(waiter: Waiter): boolean {
    const queue = this.byPerson.get(waiter.ticket.person);
    const index = queue?.indexOf(waiter) ?? -1;
    if (!queue || index === -1) return false;
    queue.splice(index, 1);
    this.waiting -= 1;
    if (queue.length === 0) this.byPerson.delete(waiter.ticket.person);
    return true;
  }

  find(ticket: ThrottleTicket): Waiter | undefined {
    return this.byPerson.get(ticket.person)?.find((waiter) => waiter.ticket === ticket);
  }

  /** The first read of the person served least recently (never served counts as longest ago). */
  next(): Waiter | undefined {
    let next: Waiter | undefined;
    let nextServed = Infinity;
    for (const [person, queue] of this.byPerson) {
      const served = this.lastServed.get(person) ?? -1;
      if (served < nextServed) [next, nextServed] = [queue[0], served];
    }
    return next;
  }

  /** The person just served goes to the back of the round. */
  markServed(waiter: Waiter): void {
    this.remove(waiter);
    const { person } = waiter.ticket;
    this.turns += 1;
    this.lastServed.delete(person);
    this.lastServed.set(person, this.turns);
    if (this.lastServed.size > REMEMBERED_PEOPLE) {
      const oldest = this.lastServed.keys().next().value;
      if (oldest !== undefined) this.lastServed.delete(oldest);
    }
  }
}

export class FairThrottle {
  private readonly starts: number[] = [];
  private readonly approvals: Waiter[] = [];
  private readonly lanes: Record<ReadPriorityOfLane, ReadLane>;
  private wakeTimer: NodeJS.Timeout | undefined;
  private readonly now: () => number;
  private readonly maxQueue: number;
  private readonly maxPerPerson: number;
  private readonly maxWaitMs: number;

  constructor(private readonly options: ThrottleOptions) {
    this.now = options.now ?? Date.now;
    this.maxQueue = options.maxQueue ?? 50;
    this.maxPerPerson = options.maxPerPerson ?? 5;
    this.maxWaitMs = options.maxWaitMs ?? 10_000;
    const forApprovals = clamp(options.approvalReserve ?? 3, options.limit - 1);
    const forCommands = clamp(options.commandReserve ?? 2, options.limit - 1 - forApprovals);
    this.lanes = { command: new ReadLane(forApprovals), background: new ReadLane(forApprovals + forCommands) };
  }

  acquire(ticket: ThrottleTicket): Promise<void> {
    if (ticket.priority !== 'approval') {
      const lane = this.lanes[ticket.priority];
      if (lane.waitingOf(ticket.person) >= this.maxPerPerson || lane.length >= this.maxQueue) {
        return Promise.reject(new ThrottleBusyError(this.estimatedWaitMs(this.aheadIn(lane) + 1, lane)));
      }
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { ticket, resolve, reject, timer: undefined };
      if (ticket.priority === 'approval') this.approvals.push(waiter);
      else this.enqueueRead(waiter);
      this.pump();
    });
  }

  /**
   * A read still waiting under `ticket` is now wanted by someone of `by.priority` (a command joins
   * a background read of the same thing already under way): it moves to that lane, in `by.person`'s
   * turn, if that lane goes ahead of its own. Nothing happens for a read already sent.
   */
  promote(ticket: ThrottleTicket, by: ThrottleTicket): void {
    if (ticket.priority === 'approval' || RANK[by.priority] <= RANK[ticket.priority]) return;
    const lane = this.lanes[ticket.priority];
    const waiter = lane.find(ticket);
    if (!waiter || !this.removeRead(waiter)) return;
    ticket.priority = by.priority;
    ticket.person = by.person;
    if (by.priority === 'approval') this.approvals.push(waiter);
    else this.enqueueRead(waiter);
    this.pump();
  }

  /** Reads waiting now (for tests and logs). */
  get waiting(): number {
    return this.lanes.command.length + this.lanes.background.length + this.approvals.length;
  }

  private enqueueRead(waiter: Waiter): void {
    const priority = waiter.ticket.priority;
    if (priority === 'approval') return;
    this.lanes[priority].push(waiter);
    waiter.timer = setTimeout(() => this.giveUp(waiter), this.maxWaitMs);
    waiter.timer.unref();
  }

  private giveUp(waiter: Waiter): void {
    if (!this.removeRead(waiter)) return;
    const lane = this.laneOf(waiter);
    waiter.reject(new ThrottleBusyError(this.estimatedWaitMs(lane ? this.aheadIn(lane) + 1 : 1, lane)));
  }

  /** Reads that go before a new one of `lane`: its own waiting and those of the lanes ahead of it. */
  private aheadIn(lane: ReadLane): number {
    return lane === this.lanes.background ? lane.length + this.lanes.command.length : lane.length;
  }

  private laneOf(waiter: Waiter): ReadLane | undefined {
    const priority = waiter.ticket.priority;
    return priority === 'approval' ? undefined : this.lanes[priority];
  }

  private removeRead(waiter: Waiter): boolean {
    if (!this.laneOf(waiter)?.remove(waiter)) return false;
    if (waiter.timer) clearTimeout(waiter.timer);
    return true;
  }

  /**
   * Starts every waiter the window has room for: approvals first, then people's reads, then
   * background reads, one per person in turn within a lane. When the first in that order cannot
   * start, none after it can: each lane may use fewer of the window's requests than the one before.
   */
  private pump(): void {
    for (;;) {
      const next = this.approvals[0] ?? this.lanes.command.next() ?? this.lanes.background.next();
      if (!next) return;
      const lane = this.laneOf(next);
      if (!this.takeSlot(lane?.reserved ?? 0)) {
        this.wakeWhenSlotFrees();
        return;
      }
      if (lane) {
        lane.markServed(next);
        if (next.timer) clearTimeout(next.timer);
      } else this.approvals.shift();
      next.resolve();
    }
  }

  private takeSlot(reserved: number): boolean {
    const now = this.now();
    while (this.starts.length > 0 && (this.starts[0] ?? 0) <= now - this.options.windowMs) this.starts.shift();
    if (this.starts.length >= this.options.limit - reserved) return false;
    this.starts.push(now);
    return true;
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

  /** Time until `position` more requests of `lane` could start, at what it may use of each window. */
  private estimatedWaitMs(position: number, lane: ReadLane | undefined): number {
    const now = this.now();
    const active = this.starts.filter((start) => start > now - this.options.windowMs);
    const forLane = this.options.limit - (lane?.reserved ?? 0);
    const free = forLane - active.length;
    if (position <= free) return 1_000;
    const windows = Math.ceil((position - free) / forLane);
    const firstFree = (active[0] ?? now) + this.options.windowMs - now;
    return Math.max(1_000, firstFree + (windows - 1) * this.options.windowMs);
  }
}

function clamp(value: number, most: number): number {
  return Math.max(0, Math.min(value, most));
}
