/**
 * Slack accepts about one message per second per channel; bursts get rate limited. Posts to the
 * same channel are queued and spaced; other channels are not held up. Within a channel, bulk
 * posts (the many messages of a summary) yield to everything else: a change request posted while
 * a 92-message summary is going out waits for one post, not for the summary.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Message, Messenger } from '../ports/messenger.js';

interface Job {
  message: Message;
  resolve: (ts: string) => void;
  reject: (error: unknown) => void;
}

interface Lane {
  urgent: Job[];
  bulk: Job[];
  busy: boolean;
  lastPostAt: number;
}

export function pacedMessenger(inner: Messenger, intervalMs: number): Messenger {
  const lanes = new Map<string, Lane>();

  async function drain(channelId: string, lane: Lane): Promise<void> {
    lane.busy = true;
    for (let job = lane.urgent.shift() ?? lane.bulk.shift(); job; job = lane.urgent.shift() ?? lane.bulk.shift()) {
      const wait = lane.lastPostAt + intervalMs - Date.now();
      if (wait > 0) await sleep(wait);
      try {
        job.resolve(await inner.post(channelId, job.message));
      } catch (error) {
        job.reject(error);
      } finally {
        lane.lastPostAt = Date.now();
      }
    }
    lane.busy = false;
    // An idle lane is forgotten once its spacing no longer matters, so the map stays small.
    setTimeout(() => {
      if (!lane.busy && lanes.get(channelId) === lane) lanes.delete(channelId);
    }, intervalMs).unref();
  }

  return {
    ...inner,
    post(channelId, message) {
      const lane = lanes.get(channelId) ?? { urgent: [], bulk: [], busy: false, lastPostAt: 0 };
      lanes.set(channelId, lane);
      return new Promise<string>((resolve, reject) => {
        (message.bulk ? lane.bulk : lane.urgent).push({ message, resolve, reject });
        if (!lane.busy) void drain(channelId, lane);
      });
    },
  };
}
