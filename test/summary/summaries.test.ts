/** Summaries in process: headline and thread, drift between two summaries, and failures told. */
import { describe, expect, it } from 'vitest';
import { CloudApiError } from '../../src/core/service/api-error.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { allTexts } from '../core/render/block-kit.js';
import { Summaries } from '../../src/summary/summaries.js';
import { BOB, CHANNEL, inProcess } from '../support/in-process.js';

const target = { channelId: CHANNEL, filters: [], snapshotKey: 'adhoc:test' };

describe('Summaries, in process', () => {
  it('posts a headline with its details in the thread, and the drift the next time', async () => {
    const h = inProcess();
    expect(await h.summaries.post(target)).toStrictEqual({ ok: true });
    const [headline, ...details] = h.messenger.of('post', CHANNEL);
    expect(allTexts(headline?.message.blocks ?? [])).toContain('First summary: changes are reported from the next one');
    expect(details.length).toBeGreaterThan(0);
    expect(details.every((d) => d.message.threadTs === headline?.ts)).toBe(true);

    const id = await h.requestChange('rename legacy-reporting legacy-reports');
    await h.flow.decide('approve', id, BOB);
    const ordersProd = h.directory.state.get(DEMO_IDS.ordersProd);
    if (!ordersProd) throw new Error('no orders-prod');
    h.directory.state.put({ ...ordersProd, releaseChannel: 'fast' });
    const before = h.messenger.sent.length;
    await h.summaries.post(target);
    const second = h.messenger.sent.slice(before).filter((s) => s.kind === 'post');
    expect(allTexts(second[0]?.message.blocks ?? [])).toContain(
      '2 changes since the last summary: 1 via this bot, 1 elsewhere',
    );
    expect(second.map((s) => allTexts(s.message.blocks)).join('\n')).toContain(`via this bot (\`${id}\`)`);
  });

  it("tells the channel and the asker when the API fails, with the API's status and request id", async () => {
    const h = inProcess();
    h.directory.listServices = () =>
      Promise.reject(new CloudApiError('http', 'boom', { status: 500, requestId: 'req-500' }));
    const outcome = await h.summaries.post(target);
    expect(outcome).toStrictEqual({
      ok: false,
      text: ':x: The summary could not be posted: ClickHouse Cloud had an internal error. Try again in a few minutes. (status 500, request id req-500)',
    });
    expect(allTexts(h.messenger.of('post', CHANNEL)[0]?.message.blocks ?? [])).toContain(
      '(status 500, request id req-500)',
    );
  });

  it('asks to invite the bot where it cannot post, and keeps no baseline from the failed run', async () => {
    const h = inProcess();
    h.messenger.outside.add(CHANNEL);
    const outcome = await h.summaries.post(target);
    expect(outcome).toStrictEqual({
      ok: false,
      text: ':x: The summary could not be posted: Slack refused the post (not_in_channel). Invite the bot to this channel and try again.',
    });
    expect(await h.scheduleStore.readSnapshot(target.snapshotKey)).toBeUndefined();
  });

  it('posts without the keys when they do not come in time, saying so, and keeps the keys baseline', async () => {
    const h = inProcess();
    await h.summaries.post(target);
    const keysIn = async () =>
      Object.keys(
        (
          JSON.parse((await h.scheduleStore.readSnapshot(target.snapshotKey)) ?? '{}') as {
            keys?: { items: Record<string, unknown> };
          }
        ).keys?.items ?? {},
      );
    const baseline = await keysIn();
    expect(baseline.length).toBeGreaterThan(0);
    h.directory.listApiKeys = () => new Promise(() => undefined);
    const summaries = new Summaries({
      cloud: h.directory,
      audit: h.changeStore,
      snapshots: h.scheduleStore,
      messenger: h.messenger,
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
      keysWaitMs: 20,
    });
    const before = h.messenger.sent.length;
    expect(await summaries.post(target)).toStrictEqual({ ok: true });
    const [headline] = h.messenger.sent.slice(before).filter((s) => s.kind === 'post');
    expect(allTexts(headline?.message.blocks ?? [])).toContain('not read this time; the next summary tries again');
    // The demo's keys as the first summary read them, whatever their number.
    expect(await keysIn()).toStrictEqual(baseline);
  });
});
