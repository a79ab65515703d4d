/**
 * After the API accepted a stop, start, wake or scaling, the service takes a while to get there:
 * the request is recorded applied at once (a state on its way counts), and this follows it by
 * reading the service again until it settles, went elsewhere, or the schedule is over.
 *
 * Bounded on purpose, as the API's budget is shared by everyone using the bot:
 * - reads follow core/capacity/follow.ts's schedule (soon, then less and less often), each fresh
 *   but in the ordinary read lane of the shared throttle, so people's reads and approvals go first;
 * - one loop per service in this process: a second request for a service already followed joins
 *   its loop, and one read answers both;
 * - a read that fails (429, 5xx, the throttle busy) is never retried at once: it uses up its
 *   planned read and the next one too (the wait doubles), so failures shorten the follow rather
 *   than lengthen it;
 * - the request's message is updated only when the reading changes, and the thread gets one
 *   reply at the end, whichever way it ended.
 * Every decision is core's (progressOf, followReadTimes) and every sentence core/render/follow.ts's.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { DEFAULT_FOLLOW, followReadTimes, followTarget, progressOf, sameProgress } from '../core/capacity/follow.js';
import type { FollowSchedule, Progress } from '../core/capacity/follow.js';
import type { CapacityValues } from '../core/capacity/values.js';
import { operationsOf } from '../core/change/operations.js';
import type { ChangeRequest } from '../core/change/types.js';
import { requesterMessage, requestMessage } from '../core/render/change.js';
import { approvalChannelOf } from '../core/policy/progress.js';
import { messageOf } from '../core/render/errors.js';
import {
  followEndMessage,
  followEndText,
  movingLine,
  withProgressLine,
  type FollowFacts,
  type FollowOutcome,
} from '../core/render/follow.js';
import type { ServiceRecord } from '../core/service/schema.js';
import type { Log, Messenger, ServiceDirectory } from '../ports/index.js';

/** Who the follow's reads are for in the throttle's fair share: one lane for every follow. */
export const FOLLOW_READER = 'following changes';

export interface FollowObserver {
  /** One read of a service, whether it answered or failed. */
  read(): void;
  outcome(outcome: FollowOutcome): void;
}

export interface FollowerOptions {
  cloud: Pick<ServiceDirectory, 'getService'>;
  /** Each organization's directory (ORGANIZATIONS_FILE); without it every read goes through `cloud`. */
  cloudOf?: (organization: string | undefined) => Pick<ServiceDirectory, 'getService'>;
  messenger: Pick<Messenger, 'post' | 'update'>;
  logger: Pick<Log, 'info' | 'warn'>;
  /** The command people type (`/clickhouse`): the "check it with" sentences name it. */
  slashCommand: string;
  schedule?: FollowSchedule;
  /** Milliseconds, for the elapsed times people read and the read plan; Date.now unless given. */
  now?: () => number;
  /** Waits `ms` or until the signal aborts (then resolves early, never rejects). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  observe?: FollowObserver;
}

/** One request being followed. */
interface Watch {
  request: ChangeRequest & { messageTs: string };
  target: CapacityValues;
  acceptedAt: number;
  /** Its planned reads still to come, as absolute times, earliest first. */
  due: number[];
  reads: number;
  /** The last reading shown on the message. */
  shown: Progress | undefined;
  /** The last reading at all (failed reads leave it as it was). */
  last: Progress | undefined;
  lastReadAt: number;
  finished: () => void;
}

/** The loop of one service and the requests it answers. */
interface ServiceLoop {
  watches: Watch[];
  done: Promise<void>;
  /** Ends the loop's current wait early: a request that joined may be due sooner. */
  nap: AbortController | undefined;
}

const realSleep = (ms: number, signal: AbortSignal): Promise<void> =>
  delay(ms, undefined, { signal }).catch(() => undefined);

export class Follower {
  private readonly loops = new Map<string, ServiceLoop>();
  private readonly stopping = new AbortController();
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private readonly schedule: FollowSchedule;
  private readonly readTimes: number[];

  constructor(private readonly options: FollowerOptions) {
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? realSleep;
    this.schedule = options.schedule ?? DEFAULT_FOLLOW;
    this.readTimes = followReadTimes(this.schedule);
  }

  /** Requests followed right now, over every service (tests, and the shutdown log). */
  get following(): number {
    return [...this.loops.values()].reduce((sum, loop) => sum + loop.watches.length, 0);
  }

  /**
   * Follows an applied request whose operations take time to show (replicaScaling, state);
   * anything else is left alone. Resolves when this request's follow has ended; never rejects,
   * so the caller may leave it running (the approval flow must not wait for it).
   */
  follow(request: ChangeRequest): Promise<void> {
    const target = followTarget(operationsOf(request.plan));
    const messageTs = request.messageTs;
    if (this.stopping.signal.aborted || request.status !== 'applied' || !target || !messageTs) return Promise.resolve();
    // The request was recorded applied right after the API answered: close enough to "accepted".
    const acceptedAt = this.now();
    return new Promise<void>((finished) => {
      const watch: Watch = {
        request: { ...request, messageTs },
        target,
        acceptedAt,
        due: this.readTimes.map((at) => acceptedAt + at),
        reads: 0,
        shown: undefined,
        last: undefined,
        lastReadAt: acceptedAt,
        finished,
      };
      if (watch.due.length === 0) {
        // A schedule too short for a single read: say so at once rather than stay silent.
        void this.end(watch, 'still-moving');
        return;
      }
      const serviceId = request.plan.serviceId;
      const running = this.loops.get(serviceId);
      if (running?.watches.some((other) => other.request.id === request.id)) {
        // Told twice about the same request: one follow says it all.
        finished();
        return;
      }
      if (running) {
        running.watches.push(watch);
        running.nap?.abort();
        return;
      }
      const loop: ServiceLoop = { watches: [watch], done: Promise.resolve(), nap: undefined };
      this.loops.set(serviceId, loop);
      // Nothing in a loop is meant to throw (reads, updates and posts catch their own failures);
      // should something still do, it is logged, never left as an unhandled rejection.
      loop.done = this.run(serviceId, loop).catch((error: unknown) =>
        this.options.logger.warn(`following service ${serviceId} stopped: ${messageOf(error)}`),
      );
    });
  }

  /**
   * Shutdown: no new follow starts, sleeping loops wake and end without another read or post
   * (the next process does not pick them up: the request is recorded applied either way, and the
   * thread already shows the record). Resolves when every loop has returned.
   */
  async stop(): Promise<void> {
    this.stopping.abort();
    const loops = [...this.loops.values()];
    const left = loops.reduce((sum, loop) => sum + loop.watches.length, 0);
    if (left > 0) this.options.logger.info(`shutdown: stopped following ${left} change request(s) on their way`);
    await Promise.allSettled(loops.map((loop) => loop.done));
  }

  private async run(serviceId: string, loop: ServiceLoop): Promise<void> {
    const signal = this.stopping.signal;
    try {
      while (loop.watches.length > 0 && !signal.aborted) {
        const nextAt = Math.min(...loop.watches.map((watch) => watch.due[0] ?? Infinity));
        const wait = nextAt - this.now();
        if (wait > 0) {
          // One signal for both reasons to wake (shutdown, or a request that joined), without
          // AbortSignal.any (Node 20.3+, and it keeps its sources alive longer than needed).
          const nap = new AbortController();
          const wake = () => nap.abort();
          signal.addEventListener('abort', wake, { once: true });
          loop.nap = nap;
          await this.sleep(wait, nap.signal);
          loop.nap = undefined;
          signal.removeEventListener('abort', wake);
          if (signal.aborted) break;
          // Woken by a request that joined: its first read may come before the one waited for.
          if (nap.signal.aborted) continue;
        }
        const read = await this.read(serviceId, loop.watches[0]?.request.organization);
        if (signal.aborted) break;
        for (const watch of [...loop.watches]) await this.judge(loop, watch, read);
      }
    } finally {
      // In the same turn as the loop's last check, so a request that comes later starts a new loop.
      this.loops.delete(serviceId);
      // Stopped: the requests left are let go without a word (see stop()).
      for (const watch of loop.watches.splice(0)) watch.finished();
    }
  }

  /** One fresh read in the ordinary lane; a failure is an answer too, never thrown. */
  private async read(
    serviceId: string,
    organization: string | undefined,
  ): Promise<{ at: number; ok: true; service: ServiceRecord | undefined } | { at: number; ok: false }> {
    this.options.observe?.read();
    try {
      const cloud = this.options.cloudOf?.(organization) ?? this.options.cloud;
      const service = await cloud.getService(serviceId, {
        fresh: true,
        priority: 'background',
        person: FOLLOW_READER,
      });
      return { at: this.now(), ok: true, service };
    } catch (error) {
      this.options.logger.info(
        `following service ${serviceId}: a read failed, reading less often: ${messageOf(error)}`,
      );
      return { at: this.now(), ok: false };
    }
  }

  /** What one read means for one request: shown, ended, or nothing new. */
  private async judge(
    loop: ServiceLoop,
    watch: Watch,
    read: { at: number; ok: true; service: ServiceRecord | undefined } | { at: number; ok: false },
  ): Promise<void> {
    const planned = (watch.due[0] ?? Infinity) <= read.at;
    // A failed read another request planned says nothing to this one and costs it nothing.
    if (!read.ok && !planned) return;
    watch.reads += 1;
    while ((watch.due[0] ?? Infinity) <= read.at) watch.due.shift();
    if (!read.ok) {
      // Back off: the next planned read is skipped too, and counts against the bound.
      watch.due.shift();
    } else {
      watch.last = progressOf(watch.target, read.service);
      watch.lastReadAt = read.at;
      if (watch.last.kind !== 'moving') return this.end(watch, watch.last.kind, loop);
      if (!sameProgress(watch.shown, watch.last)) {
        watch.shown = watch.last;
        await this.show(watch, movingLine(watch.last, this.facts(watch)));
      }
    }
    if (watch.due.length === 0) await this.end(watch, 'still-moving', loop);
  }

  private facts(watch: Watch): FollowFacts {
    return {
      serviceName: watch.request.plan.serviceName,
      serviceId: watch.request.plan.serviceId,
      target: watch.target,
      reads: watch.reads,
      elapsedMs: watch.lastReadAt - watch.acceptedAt,
    };
  }

  /** The message's last line says how it ended, and the thread gets the one reply. */
  private async end(watch: Watch, outcome: FollowOutcome, loop?: ServiceLoop): Promise<void> {
    const at = loop ? loop.watches.indexOf(watch) : -1;
    if (loop && at >= 0) loop.watches.splice(at, 1);
    this.options.observe?.outcome(outcome);
    const facts = { ...this.facts(watch), watchedMs: this.schedule.totalMs, slashCommand: this.options.slashCommand };
    const { request } = watch;
    try {
      await this.show(watch, followEndText(outcome, watch.last, facts));
      await this.options.messenger.post(request.channelId, {
        ...followEndMessage(request.id, outcome, watch.last, facts),
        threadTs: request.threadTs ?? request.messageTs,
      });
    } catch (error) {
      this.options.logger.warn(`change ${request.id}: could not post how following it ended: ${messageOf(error)}`);
    } finally {
      watch.finished();
    }
  }

  /**
   * The request's messages as recorded, with the progress line: the requester's channel's, and the
   * approval channel's when it was decided there, so neither is left saying "stopping" once the
   * service got where it was going. A failed update is logged, never thrown.
   */
  private async show(watch: Watch, line: string): Promise<void> {
    const { request } = watch;
    const decidedIn = approvalChannelOf(request);
    const messages = [
      { channelId: request.channelId, ts: request.messageTs, message: requesterMessage(request) },
      ...(decidedIn && request.approvalTs
        ? [{ channelId: decidedIn, ts: request.approvalTs, message: requestMessage(request) }]
        : []),
    ];
    for (const { channelId, ts, message } of messages) {
      try {
        await this.options.messenger.update(channelId, ts, withProgressLine(message, line));
      } catch (error) {
        this.options.logger.warn(
          `change ${request.id}: could not show its progress in ${channelId}: ${messageOf(error)}`,
        );
      }
    }
  }
}
