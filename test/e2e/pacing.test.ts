/**
 * A summary of 5,000 services is 92 messages in one channel, spaced by Slack's pacing (about one
 * post a second). A change request typed in that channel while several such summaries go out
 * must not wait its turn behind them.
 */
import { describe, expect, it } from 'vitest';
import { syntheticServices } from '../../src/simulator/seed.js';
import { CHANNEL, textOf, useHarnesses, USERS } from './harness.js';

const harness = useHarnesses();

describe('pacing', () => {
  it('posts a change request within a couple of seconds (not behind them) while long summaries (5,000 services) go out in the same channel', async () => {
    const services = syntheticServices(5_000);
    const h = await harness({ services, channelPostIntervalMs: 1_000 });
    const filters = ['', 'tag:env', 'tag:team', 'tag:env tag:team'];
    for (const filter of filters) await h.command(`summary ${filter}`);
    const headlines = () =>
      h.slack.callsOf(
        'chat.postMessage',
        (a) => a.channel === CHANNEL && String(a.text).startsWith('ClickHouse Cloud summary:'),
      );
    while (headlines().length < filters.length) {
      await h.slack.waitFor('chat.postMessage', (a) => String(a.text).startsWith('ClickHouse Cloud summary:'), {
        after: h.slack.calls.length,
        timeoutMs: 30_000,
      });
    }
    // Each summary of 5,000 services has a long thread (61 messages since real figures; 91 before).
    const threadSizes = headlines().map((c) =>
      Number(/Details in the thread \((\d+) messages\)/.exec(textOf(c.args.blocks))?.[1]),
    );
    const [threadSize = 0] = threadSizes;
    expect(threadSize).toBeGreaterThanOrEqual(50);
    expect(threadSizes).toStrictEqual(filters.map(() => threadSize));

    await h.command(`rename ${services[0]?.id ?? ''} renamed-one`, USERS.requester);
    const request = await h.slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes('Change request'), {
      timeoutMs: 60_000,
    });
    const detailsBefore = h.slack
      .callsOf('chat.postMessage', (a) => String(a.text).startsWith('ClickHouse Cloud summary · details'))
      .filter((c) => c.at <= request.at).length;
    // From the moment the request was stored (ready to post) to its post in the channel.
    const id = /CR-[0-9A-F]{10}/.exec(textOf(request.args.blocks))?.[0] ?? '';
    const stored = await h.bot.changeStore.get(id);
    expect(request.at - (stored?.createdAt ?? 0)).toBeLessThan(3_000);
    // The summaries were still going out: the request went ahead of them.
    expect(detailsBefore).toBeLessThan(4 * threadSize);
  }, 120_000);
});
