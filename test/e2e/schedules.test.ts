/**
 * Schedules within reason: no summary every second, no more than a handful per channel, no run
 * doubled while the previous one still posts, ids that cannot collide, and drift baselines that
 * cannot pile up.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { syntheticServices } from '../../src/simulator/seed.js';
import { keysWithPrefix } from '../support/redis.js';
import { ACTION_SCHEDULE_REMOVE } from '../../src/core/render/schedule.js';
import { answerText, CHANNEL, REDIS_URL, textOf, useHarnesses, USERS, type Harness } from './harness.js';

const harness = useHarnesses();

const headlines = (h: Harness, title: string) =>
  h.slack.callsOf(
    'chat.postMessage',
    (a) => a.channel === CHANNEL && a.thread_ts === undefined && String(a.text).startsWith(`${title}:`),
  );

async function snapshotKeys(h: Harness): Promise<string[]> {
  const redis = new Redis(REDIS_URL);
  try {
    return (await keysWithPrefix(redis, h.keyPrefix)).filter((k) => k.includes(':snap:'));
  } finally {
    redis.disconnect();
  }
}

describe('schedules within reason', () => {
  it('refuses a schedule that fires more often than SCHEDULE_MIN_INTERVAL_SECONDS, naming the limit', async () => {
    const h = await harness({ env: { SCHEDULE_MIN_INTERVAL_SECONDS: '' } });
    const every = await answerText(h, await h.command('schedule add "* * * * * *"'));
    expect(every).toContain(
      'fires every 1 second at its busiest, and summaries may be scheduled at most once every 15 minutes (SCHEDULE_MIN_INTERVAL_SECONDS=900)',
    );
    const twice = await answerText(h, await h.command('schedule add "0,5 9 * * *"'));
    expect(twice).toContain('fires every 5 minutes at its busiest');
    expect(await h.bot.services.scheduleStore.listSchedules()).toStrictEqual([]);
    expect(await answerText(h, await h.command('schedule add "*/15 * * * *"'))).toContain(
      'Scheduled a summary in this channel',
    );
  });

  it('refuses more than SCHEDULE_MAX_PER_CHANNEL schedules in a channel, naming the limit', async () => {
    const h = await harness({ env: { SCHEDULE_MAX_PER_CHANNEL: '2' } });
    for (const hour of [9, 10])
      expect(await answerText(h, await h.command(`schedule add "0 ${hour} * * *"`))).toContain('Scheduled a summary');
    const third = await answerText(h, await h.command('schedule add "0 11 * * *"'));
    expect(third).toContain(
      'This channel already has 2 scheduled summaries, the most allowed (SCHEDULE_MAX_PER_CHANNEL=2)',
    );
    expect(await h.bot.services.scheduleStore.listSchedules(CHANNEL)).toHaveLength(2);
    expect(await answerText(h, await h.command('schedule add "0 11 * * *"', undefined, 'C0ELSEWHERE'))).toContain(
      'Scheduled a summary',
    );
  });

  it('gives schedules ids of 64 random bits', async () => {
    const h = await harness();
    const text = await answerText(h, await h.command('schedule add "0 9 * * *"'));
    expect(text).toMatch(/`sch-[0-9a-f]{16}`/);
  });

  it('skips a fire time while the previous run still posts, and says so in the log', async () => {
    // 1,000 services and 500 ms between posts: one run takes several seconds; the schedule fires every second.
    const h = await harness({ services: syntheticServices(1_000), channelPostIntervalMs: 500 });
    await h.command('schedule add "* * * * * *"');
    await h.slack.waitFor('chat.postMessage', (a) => String(a.text).startsWith('Scheduled ClickHouse Cloud summary:'), {
      timeoutMs: 10_000,
    });
    const skipped = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no skip logged')), 10_000);
      const look = setInterval(() => {
        const line = h.logs.find((l) => l.includes('the previous run is still posting'));
        if (line) {
          clearTimeout(timer);
          clearInterval(look);
          resolve(line);
        }
      }, 50);
    });
    expect(skipped).toMatch(
      /schedule sch-[0-9a-f]{16}: the previous run is still posting at .*, so this run is skipped/,
    );
    // Still a single run going out: no second headline while its details post.
    expect(headlines(h, 'Scheduled ClickHouse Cloud summary')).toHaveLength(1);
  }, 30_000);

  it("normalises ad-hoc filters, keeps a few baselines per channel, and removes a schedule's baseline with it", async () => {
    const h = await harness({ env: { CLICKHOUSE_CACHE_SECONDS: '0' } });
    await h.command('summary tag:env tag:team');
    await h.slack.waitFor('chat.postMessage', (a) => String(a.text).startsWith('ClickHouse Cloud summary:'));
    const after = h.slack.calls.length;
    await h.command('summary tag:team tag:env tag:team');
    const second = await h.slack.waitFor(
      'chat.postMessage',
      (a) => String(a.text).startsWith('ClickHouse Cloud summary:'),
      { after },
    );
    expect(textOf(second.args.blocks)).not.toContain('First summary');

    for (let i = 0; i < 8; i += 1) {
      const before = h.slack.calls.length;
      await h.command(`summary tag:env=v${i}`);
      await h.slack.waitFor('chat.postMessage', (a) => String(a.text).startsWith('ClickHouse Cloud summary:'), {
        after: before,
      });
    }
    // The last baseline is written just after its summary's last post: wait for it, then count.
    const adHoc = async () => (await snapshotKeys(h)).filter((k) => k.includes(':snap:adhoc:'));
    const deadline = Date.now() + 5_000;
    const settled = (keys: string[]) => keys.some((k) => k.endsWith('tag:env=v7')) && keys.length <= 5;
    while (!settled(await adHoc()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await adHoc()).toHaveLength(5);

    const added = await answerText(h, await h.command('schedule add "* * * * * *"'));
    const id = /sch-[0-9a-f]{16}/.exec(added)?.[0] ?? '';
    await h.slack.waitFor('chat.postMessage', (a) => String(a.text).startsWith('Scheduled ClickHouse Cloud summary:'), {
      timeoutMs: 10_000,
    });
    await h.bot.scheduler.stop();
    expect((await snapshotKeys(h)).some((k) => k.endsWith(`:snap:schedule:${id}`))).toBe(true);
    await answerText(h, await h.command(`schedule remove ${id}`));
    expect((await snapshotKeys(h)).some((k) => k.endsWith(`:snap:schedule:${id}`))).toBe(false);
  }, 30_000);
});

describe('schedules are told to the channel and listed with who set them up', () => {
  it('announces a new schedule with its author and first runs; the list names the author and Remove removes it', async () => {
    const h = await harness();
    const after = h.slack.calls.length;
    const added = await answerText(h, await h.command('schedule add "0 9 * * 1-5" tag:env=prod', USERS.requester));
    const id = /`(sch-[0-9a-f]{16})`/.exec(added)?.[1] ?? '';
    const told = await h.slack.waitFor(
      'chat.postMessage',
      (a) => a.channel === CHANNEL && textOf(a.blocks).includes(id),
      {
        after,
      },
    );
    expect(textOf(told.args.blocks)).toContain(`<@${USERS.requester}> scheduled a summary in this channel`);
    expect(textOf(told.args.blocks)).toMatch(/First runs: <!date\^/);

    const list = await h.command('schedule list', USERS.approver);
    const answer = await h.slack.waitFor('response_url', (a) => a.responseUrlId === list.responseUrlId);
    expect(textOf(answer.args.blocks)).toContain(`set up by <@${USERS.requester}>`);
    expect(JSON.stringify(answer.args.blocks)).toContain(ACTION_SCHEDULE_REMOVE);

    const removed = await answerText(h, await h.click(ACTION_SCHEDULE_REMOVE, id, USERS.approver));
    expect(removed).toContain(`Removed schedule \`${id}\``);
    expect(await h.bot.services.scheduleStore.listSchedules(CHANNEL)).toStrictEqual([]);
    // A second click (an old list) is told there is nothing to remove.
    expect(await answerText(h, await h.click(ACTION_SCHEDULE_REMOVE, id, USERS.approver))).toContain(
      `This channel has no schedule \`${id}\``,
    );
  });

  it('removes nothing of another channel through a button clicked elsewhere', async () => {
    const h = await harness();
    const added = await answerText(h, await h.command('schedule add "0 9 * * 1-5"'));
    const id = /`(sch-[0-9a-f]{16})`/.exec(added)?.[1] ?? '';
    const elsewhere = await answerText(
      h,
      await h.click(ACTION_SCHEDULE_REMOVE, id, USERS.outsider, undefined, { channel: 'C0ELSEWHERE' }),
    );
    expect(elsewhere).toContain('This channel has no schedule');
    expect(await h.bot.services.scheduleStore.listSchedules(CHANNEL)).toHaveLength(1);
  });
});
