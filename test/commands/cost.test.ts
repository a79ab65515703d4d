import { describe, expect, it } from 'vitest';
import { CHANNEL, inProcess } from '../support/in-process.js';
import { pngSize } from '../support/png.js';

const textOf = (blocks: unknown[]): string => JSON.stringify(blocks);

describe('/clickhouse cost in process', () => {
  it('posts the report in the channel and the chart, whose text alternative lists the same totals, in its thread', async () => {
    const bot = inProcess();
    const replies = await bot.command('cost');
    expect(replies.map((r) => r.text).join()).toMatch(/report is in the channel/);
    const post = bot.messenger.sent.find((sent) => sent.kind === 'post' && sent.channelId === CHANNEL);
    expect(post?.message.text).toMatch(/^Spend of the organization: [\d,.]+ CHC over 7 days/);
    const report = textOf(post?.message.blocks ?? []);
    expect(report).toContain('By kind: compute');
    expect(report).toContain('Top movers');
    expect(report).toMatch(/shared data warehouse storage, split evenly/);
    const [upload] = bot.messenger.files;
    expect(upload?.channelId).toBe(CHANNEL);
    expect(upload?.file.threadTs).toBe(post?.ts);
    expect(pngSize(upload?.file.bytes ?? new Uint8Array())).toEqual({ width: 320, height: 160 });
    // Every service the chart names is in the report with the same total (the chart's "other" aside).
    const parts = /stacked per service: (.*); total ([\d,.]+) CHC/.exec(upload?.file.altText ?? '');
    expect(parts).not.toBeNull();
    const total = /\*([\d,.]+) CHC\*/.exec(report)?.[1];
    expect(parts?.[2]).toBe(total);
    for (const part of (parts?.[1] ?? '').split(', ')) {
      const name = part.slice(0, part.lastIndexOf(' '));
      const amount = part.slice(part.lastIndexOf(' ') + 1);
      if (name === 'other') continue;
      expect(report).toContain(`*${name}*`);
      expect(report).toMatch(new RegExp(`${name}\\*[^•]*: ${amount.replace(/[.]/g, '\\.')} CHC`));
    }
  });

  it('reads one service and refuses an unknown one in a sentence', async () => {
    const bot = inProcess();
    await bot.command('cost orders-prod 30d');
    const post = bot.messenger.sent.find((sent) => sent.kind === 'post');
    expect(post?.message.text).toMatch(/^Spend of orders-prod: .* over 30 days/);
    // One service has nothing to be compared with (issue 41).
    expect(textOf(post?.message.blocks ?? [])).not.toContain('Top movers');
    // Its chart is split by kind, with the figures of the report's "By kind" line (issue 41).
    const alt = bot.messenger.files[0]?.file.altText ?? '';
    const kinds = /stacked per kind: (.*); total/.exec(alt)?.[1]?.split(', ') ?? [];
    expect(kinds.map((part) => part.split(' ')[0])).toEqual(expect.arrayContaining(['compute', 'storage']));
    for (const part of kinds) expect(textOf(post?.message.blocks ?? [])).toContain(part);
    const [answer] = await bot.command('cost no-such-service');
    expect(answer?.text).toMatch(/no-such-service/);
    expect(bot.messenger.sent.filter((sent) => sent.kind === 'post')).toHaveLength(1);
  });

  it('a second cost command reads only the unlocked days again, after an hour', async () => {
    const bot = inProcess();
    await bot.command('cost 30d');
    // 60 days (the period and the one before) up to yesterday: two calls of at most 31 days.
    expect(bot.directory.usageCostReads).toHaveLength(2);
    await bot.command('cost 30d');
    await bot.command('cost tag:env=prod 7d');
    expect(bot.directory.usageCostReads).toHaveLength(2);
    bot.clock.offsetMs += 61 * 60_000;
    await bot.command('cost 30d');
    expect(bot.directory.usageCostReads).toHaveLength(3);
    const last = bot.directory.usageCostReads.at(-1);
    // Only the days not locked yet (the last two, and today when the hour moved past midnight).
    expect(last && last.from >= new Date(bot.clock.now() - 3 * 86_400_000).toISOString().slice(0, 10)).toBe(true);
  });
});

describe('spend beside a capacity request', () => {
  it('shows compute per day over the last 7 days and an estimate labelled with its assumption', async () => {
    const bot = inProcess();
    await bot.requestChange('scale orders-prod replicas 6');
    const thread = bot.messenger.sent.filter((sent) => sent.kind === 'post' && sent.message.threadTs !== undefined);
    const text = thread.map((sent) => sent.message.text).find((t) => t.startsWith('*Compute spend of orders-prod*'));
    expect(text).toBeDefined();
    expect(text?.split(': ')[1]?.split(' · ')).toHaveLength(7);
    // orders-prod runs 3 replicas: 6 doubles its total memory, and the estimate doubles with it.
    expect(text).toMatch(/\*Estimate\* after this change: about [\d,.]+ CHC a day \(\+[\d,.]+ CHC a day, \+100%\)/);
    expect(text).toMatch(/Assumption: compute spend is proportional to total memory \(\d+ GB → \d+ GB, mid-range\)/);
  });

  it('says idle scaling changes the hours, not the memory', async () => {
    const bot = inProcess();
    await bot.requestChange('idle orders-prod on');
    const texts = bot.messenger.sent.map((sent) => sent.message.text);
    expect(texts.some((t) => /spend falls by the share of hours it idles/.test(t))).toBe(true);
  });

  it('a rename shows no spend', async () => {
    const bot = inProcess();
    await bot.requestChange('rename legacy-reporting legacy-reports');
    expect(bot.messenger.sent.some((sent) => sent.message.text.includes('Compute spend'))).toBe(false);
    expect(bot.directory.usageCostReads).toHaveLength(0);
  });
});
