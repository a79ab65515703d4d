/** The spend section of summaries, in process: in the thread, with the chart when asked, and a failure said. */
import { describe, expect, it } from 'vitest';
import { CloudApiError } from '../../src/core/service/api-error.js';
import { Summaries } from '../../src/summary/summaries.js';
import { allTexts } from '../core/render/block-kit.js';
import { CHANNEL, inProcess } from '../support/in-process.js';
import { pngSize } from '../support/png.js';

function withSpend(spendWaitMs?: number) {
  const h = inProcess();
  const summaries = new Summaries({
    ...(spendWaitMs === undefined ? {} : { spendWaitMs }),
    cloud: h.directory,
    audit: h.changeStore,
    snapshots: h.scheduleStore,
    messenger: h.messenger,
    logger: h.logger,
    costs: h.services.costs,
    spendCharts: h.services.spendCharts,
  });
  return { h, summaries };
}

const yesterday = () => new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

describe('the spend section of a summary', () => {
  it('says yesterday, the last 7 days against the 7 before and the top movers, in the thread', async () => {
    const { h, summaries } = withSpend();
    expect(await summaries.post({ channelId: CHANNEL, filters: ['tag:env=prod'], snapshotKey: 'adhoc:a' })).toEqual({
      ok: true,
    });
    const [headline, ...thread] = h.messenger.of('post', CHANNEL);
    // At the end of the last thread message.
    const spend = thread.at(-1);
    expect(spend?.message.threadTs).toBe(headline?.ts);
    const text = allTexts(spend?.message.blocks ?? []);
    expect(text).toContain('the services tagged env=prod');
    expect(text).toMatch(new RegExp(`Yesterday \\(${yesterday()}\\): \\*[\\d,.]+ CHC\\*`));
    expect(text).toMatch(/Last 7 days: \*[\d,.]+ CHC\*, .* against the 7 before/);
    expect(text).toContain('Top movers');
    expect(h.messenger.files).toHaveLength(0);
  });

  it('shares the chart in the thread when the schedule asks for it', async () => {
    const { h, summaries } = withSpend();
    await summaries.post({ channelId: CHANNEL, filters: [], snapshotKey: 'schedule:s', scheduled: true, chart: true });
    const [headline] = h.messenger.of('post', CHANNEL);
    const [file] = h.messenger.files;
    expect(file?.file.threadTs).toBe(headline?.ts);
    expect(pngSize(file?.file.bytes ?? new Uint8Array())).toEqual({ width: 320, height: 160 });
  });

  it('a spend read kept waiting (a busy API budget) never holds the summary up: posted without it, said', async () => {
    const { h, summaries } = withSpend(30);
    h.directory.usageCost = () => new Promise(() => undefined);
    expect(await summaries.post({ channelId: CHANNEL, filters: [], snapshotKey: 'adhoc:w' })).toEqual({ ok: true });
    const said = allTexts(h.messenger.of('post', CHANNEL).at(-1)?.message.blocks ?? []);
    expect(said).toContain('Spend is missing from this summary: the figures were not ready in time');
  });

  it('a spend read that fails costs the section only, said in a sentence', async () => {
    const { h, summaries } = withSpend();
    h.directory.usageCost = () =>
      Promise.reject(new CloudApiError('http', 'boom', { status: 403, requestId: 'req-403' }));
    expect(await summaries.post({ channelId: CHANNEL, filters: [], snapshotKey: 'adhoc:b' })).toEqual({ ok: true });
    const said = allTexts(h.messenger.of('post', CHANNEL).at(-1)?.message.blocks ?? []);
    expect(said).toMatch(
      /:warning: Spend is missing from this summary: .*may not read usage costs.*request id req-403/,
    );
  });
});
