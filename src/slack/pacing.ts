/**
 * Slack accepts about one message per second per channel; bursts get rate limited. Posts to the
 * same channel are queued and spaced; other channels are not held up.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Messenger } from '../ports/messenger.js';

export function pacedMessenger(inner: Messenger, intervalMs: number): Messenger {
  const lanes = new Map<string, { tail: Promise<unknown>; lastPostAt: number }>();
  return {
    ...inner,
    post(channelId, message) {
      const lane = lanes.get(channelId) ?? { tail: Promise.resolve(), lastPostAt: 0 };
      const turn = lane.tail.then(async () => {
        const wait = lane.lastPostAt + intervalMs - Date.now();
        if (wait > 0) await sleep(wait);
        try {
          return await inner.post(channelId, message);
        } finally {
          lane.lastPostAt = Date.now();
        }
      });
      lane.tail = turn.catch(() => undefined);
      lanes.set(channelId, lane);
      return turn;
    },
  };
}
