/**
 * Slack accepts about one chat.postMessage per second per channel, with short bursts allowed.
 * Each channel gets a token bucket: `burst` posts go out at once into a quiet channel, and the
 * bucket refills one post per `intervalMs`. So an approval's record, posted a moment after the
 * request message, goes out at once instead of waiting for the second to pass.
 *
 * Within a channel, bulk posts (the many messages of a summary) yield to everything else: a bulk
 * post waits for a full bucket, so the burst stays available for a change request typed while a
 * 92-message summary is going out (it waits for nothing), and the summary keeps the sustained rate.
 *
 * A post Slack refuses with 429 is sent again after its Retry-After, with the channel paused for
 * that long. Updates, ephemeral messages, DMs, Home tabs and user group reads are other tiers of
 * Slack's limits and are never queued here: they only wait for their own Retry-After. (Modals are
 * not retried: a trigger expires in 3 seconds.)
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { MessengerError, type Message, type Messenger } from '../ports/messenger.js';

export interface PacingOptions {
  /** A channel's sustained rate: one post per this many milliseconds (0: no pacing). */
  intervalMs: number;
  /** Posts a quiet channel takes at once. */
  burst: number;
  /** Times a call refused with 429 is made again after its Retry-After (default 3). */
  maxRetries?: number;
  /** Hears of each call made again after a 429 (metrics): its Web API method. */
  onRetry?: (method: string) => void;
}

interface Job {
  message: Message;
  attempts: number;
  resolve: (ts: string) => void;
  reject: (error: unknown) => void;
}

interface Lane {
  urgent: Job[];
  bulk: Job[];
  busy: boolean;
  tokens: number;
  refilledAt: number;
  /** Slack's Retry-After for this channel: nothing is posted before. */
  pausedUntil: number;
  /** Ends the lane's current wait early (a post that need not wait has arrived). */
  wake: (() => void) | undefined;
}

export function pacedMessenger(inner: Messenger, options: PacingOptions): Messenger {
  const { intervalMs, burst } = options;
  const maxRetries = options.maxRetries ?? 3;
  const lanes = new Map<string, Lane>();

  function refill(lane: Lane, now: number): void {
    lane.tokens =
      intervalMs <= 0 ? burst : Math.min(burst, lane.tokens + Math.max(0, now - lane.refilledAt) / intervalMs);
    lane.refilledAt = Math.max(now, lane.refilledAt);
  }

  /** How long the lane's next post must wait (0: send now). */
  function waitFor(lane: Lane, needed: number, now: number): number {
    refill(lane, now);
    const paused = lane.pausedUntil - now;
    const refilling = lane.tokens >= needed ? 0 : Math.ceil((needed - lane.tokens) * intervalMs);
    return Math.max(paused, refilling, 0);
  }

  async function drain(channelId: string, lane: Lane): Promise<void> {
    lane.busy = true;
    for (;;) {
      const queue = lane.urgent.length > 0 ? lane.urgent : lane.bulk;
      const job = queue[0];
      if (!job) break;
      // A bulk post waits for a full bucket: the burst is kept for everything else.
      const wait = waitFor(lane, queue === lane.bulk ? burst : 1, Date.now());
      if (wait > 0) {
        await wakeableSleep(lane, wait);
        continue;
      }
      queue.shift();
      lane.tokens -= 1;
      try {
        job.resolve(await inner.post(channelId, job.message));
      } catch (error) {
        const retryAfterMs = retryAfterOf(error);
        if (retryAfterMs === undefined || job.attempts >= maxRetries) {
          job.reject(error);
          continue;
        }
        job.attempts += 1;
        options.onRetry?.('chat.postMessage');
        // After the pause the channel starts again at its sustained rate: the refused post, then
        // one per interval (no burst straight after Slack said to slow down).
        lane.pausedUntil = Date.now() + retryAfterMs;
        lane.tokens = 1;
        lane.refilledAt = lane.pausedUntil;
        queue.unshift(job);
      }
    }
    lane.busy = false;
    // An idle lane is forgotten once its bucket is full again, so the map stays small. A later
    // drain may have emptied it meanwhile: then that drain's own timer forgets it, not this one
    // (a forgotten lane starts with a full burst).
    const untilFull = Math.max(waitFor(lane, burst, Date.now()), 0);
    setTimeout(() => {
      if (!lane.busy && lanes.get(channelId) === lane && waitFor(lane, burst, Date.now()) === 0)
        lanes.delete(channelId);
    }, untilFull).unref();
  }

  /** Other calls are not paced; a 429 is honoured by waiting its Retry-After before calling again. */
  async function honouringRetryAfter<T>(method: string, call: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        const retryAfterMs = retryAfterOf(error);
        if (retryAfterMs === undefined || attempt >= maxRetries) throw error;
        options.onRetry?.(method);
        await sleep(retryAfterMs);
      }
    }
  }

  return {
    ...inner,
    post(channelId, message) {
      const lane = lanes.get(channelId) ?? newLane(burst);
      lanes.set(channelId, lane);
      return new Promise<string>((resolve, reject) => {
        (message.bulk ? lane.bulk : lane.urgent).push({ message, attempts: 0, resolve, reject });
        if (!lane.busy) void drain(channelId, lane);
        else if (!message.bulk) lane.wake?.();
      });
    },
    update: (channelId, ts, message) => honouringRetryAfter('chat.update', () => inner.update(channelId, ts, message)),
    ephemeral: (channelId, userId, message) =>
      honouringRetryAfter('chat.postEphemeral', () => inner.ephemeral(channelId, userId, message)),
    dm: (userId, message) => honouringRetryAfter('chat.postMessage', () => inner.dm(userId, message)),
    publishHome: (userId, view) => honouringRetryAfter('views.publish', () => inner.publishHome(userId, view)),
    groupMembers: (groupId) => honouringRetryAfter('usergroups.users.list', () => inner.groupMembers(groupId)),
    channelMembers: (channelId) => honouringRetryAfter('conversations.members', () => inner.channelMembers(channelId)),
    userTimeZone: (userId) => honouringRetryAfter('users.info', () => inner.userTimeZone(userId)),
    uploadFile: (channelId, file) => honouringRetryAfter('files.uploadV2', () => inner.uploadFile(channelId, file)),
    permalink: (channelId, ts) => honouringRetryAfter('chat.getPermalink', () => inner.permalink(channelId, ts)),
  };
}

function newLane(burst: number): Lane {
  return {
    urgent: [],
    bulk: [],
    busy: false,
    tokens: burst,
    refilledAt: Date.now(),
    pausedUntil: 0,
    wake: undefined,
  };
}

async function wakeableSleep(lane: Lane, ms: number): Promise<void> {
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      lane.wake = undefined;
      resolve();
    }
    lane.wake = done;
  });
}

/**
 * The longest Retry-After waited for: past it the call fails at once (its caller says so) rather
 * than hold a channel's posts, an answer or an update for many minutes.
 */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Slack's Retry-After, when the call was refused for its rate (429) and said how long to wait (within reason). */
function retryAfterOf(error: unknown): number | undefined {
  if (!(error instanceof MessengerError) || error.reason !== 'rate-limited') return undefined;
  const wait = error.retryAfterMs;
  return wait !== undefined && wait <= MAX_RETRY_AFTER_MS ? wait : undefined;
}
