/**
 * Per-channel pacing on a fake clock: a quiet channel takes a short burst at once, the sustained
 * rate is one post per interval, a summary's bulk posts keep the burst for everything else, a 429
 * pauses the channel for its Retry-After, and updates are never queued behind posts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MessengerError, type Message, type Messenger } from '../../src/ports/messenger.js';
import { pacedMessenger } from '../../src/slack/pacing.js';

beforeEach(() => {
  vi.useFakeTimers({ now: 1_700_000_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

interface Sent {
  kind: 'post' | 'update';
  channelId: string;
  text: string;
  at: number;
}

/** A Slack stand-in that notes when each call arrived; `refuse` answers the next posts with 429. */
function fakeSlack() {
  const sent: Sent[] = [];
  const refusals: number[] = [];
  const inner: Messenger = {
    post(channelId, message) {
      const retryAfterMs = refusals.shift();
      if (retryAfterMs !== undefined)
        return Promise.reject(new MessengerError('chat.postMessage', 'rate-limited', 'ratelimited', retryAfterMs));
      sent.push({ kind: 'post', channelId, text: message.text, at: Date.now() });
      return Promise.resolve(String(sent.length));
    },
    update(channelId, _ts, message) {
      sent.push({ kind: 'update', channelId, text: message.text, at: Date.now() });
      return Promise.resolve();
    },
    ephemeral: () => Promise.resolve(),
    dm: (userId) => Promise.resolve({ channelId: userId, ts: '1.1' }),
    groupMembers: () => Promise.resolve([]),
    channelMembers: () => Promise.resolve([]),
    publishHome: () => Promise.resolve(),
    userTimeZone: () => Promise.resolve(undefined),
    uploadFile: () => Promise.resolve(),
    permalink: () => Promise.resolve('https://example.slack.com/archives/C0/p1'),
  };
  return { inner, sent, refuse: (retryAfterMs: number) => refusals.push(retryAfterMs) };
}

const message = (text: string, bulk = false): Message => ({ text, blocks: [], ...(bulk ? { bulk } : {}) });
const START = 1_700_000_000_000;
const offsets = (sent: Sent[]) => sent.map((s) => `${s.text}@${s.at - START}`);

describe('pacedMessenger', () => {
  it('posts a short burst into a quiet channel at once, then one a second', async () => {
    const slack = fakeSlack();
    const paced = pacedMessenger(slack.inner, { intervalMs: 1_000, burst: 3 });
    const posts = ['a', 'b', 'c', 'd', 'e'].map((t) => paced.post('C1', message(t)));
    await vi.advanceTimersByTimeAsync(5_000);
    await Promise.all(posts);
    expect(offsets(slack.sent)).toStrictEqual(['a@0', 'b@0', 'c@0', 'd@1000', 'e@2000']);
  });

  it("posts an approval's record right after its request message, not a second later", async () => {
    const slack = fakeSlack();
    const paced = pacedMessenger(slack.inner, { intervalMs: 1_000, burst: 3 });
    await paced.post('C1', message('request'));
    await vi.advanceTimersByTimeAsync(20);
    await paced.post('C1', message('record'));
    expect(offsets(slack.sent)).toStrictEqual(['request@0', 'record@20']);
  });

  it("keeps the burst for other posts while a summary's bulk posts go out one a second", async () => {
    const slack = fakeSlack();
    const paced = pacedMessenger(slack.inner, { intervalMs: 1_000, burst: 3 });
    const summary = Array.from({ length: 6 }, (_, i) => paced.post('C1', message(`s${i}`, true)));
    await vi.advanceTimersByTimeAsync(2_500);
    const request = paced.post('C1', message('request'));
    await vi.advanceTimersByTimeAsync(0);
    await request;
    await vi.advanceTimersByTimeAsync(10_000);
    await Promise.all(summary);
    const at = Object.fromEntries(slack.sent.map((s) => [s.text, s.at - START]));
    // Bulk posts keep to the interval from the first: never a burst.
    expect([at.s0, at.s1, at.s2]).toStrictEqual([0, 1_000, 2_000]);
    // The request typed meanwhile went out at once, ahead of the rest of the summary.
    expect(at.request).toBe(2_500);
    const bulkGaps = slack.sent
      .filter((s) => s.text.startsWith('s'))
      .slice(1)
      .map((s, i, all) => s.at - (i === 0 ? START : all[i - 1]!.at));
    expect(Math.min(...bulkGaps)).toBeGreaterThanOrEqual(1_000);
  });

  it('does not hold one channel up behind another', async () => {
    const slack = fakeSlack();
    const paced = pacedMessenger(slack.inner, { intervalMs: 1_000, burst: 1 });
    const posts = [paced.post('C1', message('one')), paced.post('C1', message('two')), paced.post('C2', message('x'))];
    await vi.advanceTimersByTimeAsync(1_000);
    await Promise.all(posts);
    expect(offsets(slack.sent)).toStrictEqual(['one@0', 'x@0', 'two@1000']);
  });

  it("waits Slack's Retry-After after a 429, posts again and counts the retry", async () => {
    const slack = fakeSlack();
    const retries: string[] = [];
    const paced = pacedMessenger(slack.inner, { intervalMs: 1_000, burst: 3, onRetry: (m) => retries.push(m) });
    slack.refuse(5_000);
    const first = paced.post('C1', message('first'));
    const second = paced.post('C1', message('second'));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(slack.sent).toStrictEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(first).resolves.toBe('1');
    await second;
    // The refused post keeps its place; the channel was paused for the whole Retry-After.
    expect(offsets(slack.sent)).toStrictEqual(['first@5000', 'second@6000']);
    expect(retries).toStrictEqual(['chat.postMessage']);
  });

  it('gives up after a few 429s with the rate-limited error', async () => {
    const slack = fakeSlack();
    const paced = pacedMessenger(slack.inner, { intervalMs: 1_000, burst: 3, maxRetries: 2 });
    for (let i = 0; i < 3; i++) slack.refuse(1_000);
    const post = paced.post('C1', message('doomed'));
    const outcome = expect(post).rejects.toMatchObject({ reason: 'rate-limited' });
    await vi.advanceTimersByTimeAsync(5_000);
    await outcome;
  });

  it('does not wait out an unreasonable Retry-After (an hour): the post fails at once with the rate-limited error', async () => {
    const slack = fakeSlack();
    const paced = pacedMessenger(slack.inner, { intervalMs: 1_000, burst: 3 });
    slack.refuse(3_600_000);
    const post = paced.post('C1', message('now or never'));
    const outcome = expect(post).rejects.toMatchObject({ reason: 'rate-limited' });
    await vi.advanceTimersByTimeAsync(10);
    await outcome;
    // The channel is not held up for the hour: the next post goes out.
    const next = paced.post('C1', message('next'));
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(next).resolves.toBeDefined();
  });

  it('never forgets a channel whose bucket a later burst emptied: no second burst within the second', async () => {
    const slack = fakeSlack();
    const paced = pacedMessenger(slack.inner, { intervalMs: 1_000, burst: 3 });
    await Promise.all(['a', 'b', 'c'].map((t) => paced.post('C1', message(t))));
    await vi.advanceTimersByTimeAsync(2_500);
    await Promise.all(['d', 'e'].map((t) => paced.post('C1', message(t))));
    // The first burst's "forget this idle channel" timer fires at 3 s, when the bucket is nearly empty.
    await vi.advanceTimersByTimeAsync(501);
    const late = ['f', 'g', 'h'].map((t) => paced.post('C1', message(t)));
    await vi.advanceTimersByTimeAsync(3_000);
    await Promise.all(late);
    expect(offsets(slack.sent).slice(3)).toStrictEqual(['d@2500', 'e@2500', 'f@3001', 'g@4001', 'h@5001']);
  });

  it('never delays an update behind posts, pacing or a Retry-After', async () => {
    const slack = fakeSlack();
    const paced = pacedMessenger(slack.inner, { intervalMs: 1_000, burst: 1 });
    slack.refuse(30_000);
    const posts = [paced.post('C1', message('refused')), paced.post('C1', message('queued', true))];
    await vi.advanceTimersByTimeAsync(10);
    await paced.update('C1', '1', message('approved'));
    expect(offsets(slack.sent)).toStrictEqual(['approved@10']);
    await vi.advanceTimersByTimeAsync(40_000);
    await Promise.all(posts);
  });
});
