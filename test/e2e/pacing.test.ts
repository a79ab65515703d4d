/**
 * A summary of 5,000 services is 92 messages in one channel, spaced by Slack's pacing (about one
 * post a second). A change request typed in that channel while several such summaries go out
 * must not wait its turn behind them.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { syntheticServices } from '../../src/simulator/seed.js';
import type { SlackCall } from './fake-slack.js';
import { CHANNEL, requestChange, textOf, useHarnesses, USERS, type Harness } from './harness.js';

const recordOf = (h: Harness, id: string) =>
  h.slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes(`after change ${id}`));
const appliedUpdateOf = (h: Harness, id: string) =>
  h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'));

async function metric(h: Harness, series: string): Promise<number> {
  const text = (await h.bot.metrics?.registry.metrics()) ?? '';
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

const harness = useHarnesses();

describe('pacing', () => {
  it('posts a change request within a couple of seconds (not behind them) while long summaries (5,000 services) go out in the same channel', async () => {
    const services = syntheticServices(5_000);
    // Spend is beside the point here, and reading 5,000 services' daily costs would load the machine.
    const h = await harness({ services, channelPostIntervalMs: 1_000, summarySpend: false });
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

  it("posts an approval's record at once after its request message: Slack's burst allowance, not a second's wait", async () => {
    const h = await harness({ channelPostIntervalMs: 1_000 });
    const { id, posted } = await requestChange(h, 'rename orders-staging orders-stage');
    const clickedAt = Date.now();
    await h.click(ACTION_APPROVE, id, USERS.approver);
    const record = await recordOf(h, id);
    expect(record.at - clickedAt).toBeLessThan(500);
    expect(record.at - posted.at).toBeLessThan(1_000);
  });

  it("waits Slack's Retry-After after a 429 on a post, counts it, and meanwhile updates other requests at once", async () => {
    const h = await harness();
    const first = await requestChange(h, 'rename orders-staging orders-stage');
    const second = await requestChange(h, 'rename sandbox-dev sandbox-two');
    h.slack.rateLimits.push({ method: 'chat.postMessage', channel: CHANNEL, retryAfterSeconds: 1 });
    await h.click(ACTION_APPROVE, first.id, USERS.approver);
    await appliedUpdateOf(h, first.id);
    const refusedAt = await until429(h);
    // The channel is paused for its Retry-After; the second approval's update does not wait for it.
    const secondClickedAt = Date.now();
    await h.click(ACTION_APPROVE, second.id, USERS.approver);
    const secondApplied = await appliedUpdateOf(h, second.id);
    expect(secondApplied.at - secondClickedAt).toBeLessThan(800);
    const firstRecord = await recordOf(h, first.id);
    expect(firstRecord.at - refusedAt).toBeGreaterThanOrEqual(1_000);
    expect(secondApplied.at).toBeLessThan(firstRecord.at);
    await recordOf(h, second.id);
    expect(await metric(h, 'clickhouse_bot_slack_rate_limited_total{method="chat.postMessage"}')).toBe(1);
    expect(await metric(h, 'clickhouse_bot_slack_retries_total{method="chat.postMessage"}')).toBe(1);
  });
});

/** When Slack refused the first call with 429. */
async function until429(h: Harness): Promise<number> {
  const refused =
    h.slack.rateLimitedCalls[0] ?? (await new Promise<SlackCall>((resolve) => h.slack.once('rateLimited', resolve)));
  return refused.at;
}
