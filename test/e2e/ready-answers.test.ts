/**
 * Ready answers end to end (slack/ack-thread/ready-answers.ts): the real bot over signed HTTP. A
 * `list` typed again in a channel within the cache window is answered in its acknowledgement, as
 * Slack shows an "immediate response"; what a person would notice is that it is never an older
 * list than the bot would read: not after a change the bot applied, not after the window, not
 * after a reload that no longer allows the command there.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { answerText, CHANNEL, requestChange, textOf, useHarnesses, USERS, type Ack, type Harness } from './harness.js';

const harness = useHarnesses();

const listReads = (h: Harness) =>
  h.simulator.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/services')).length;

/** The message of a command's answer: its text and blocks (not the response_url id it went to). */
async function answerOf(h: Harness, ack: Ack): Promise<string> {
  const call = await h.slack.waitFor('response_url', (a) => a.responseUrlId === ack.responseUrlId);
  return JSON.stringify({ text: call.args.text, blocks: call.args.blocks });
}

/** `list` until one is answered in its acknowledgement (the offer crosses to the thread by message). */
async function untilAnsweredInAck(h: Harness, text = 'list', channel = CHANNEL): Promise<string> {
  let answered = '';
  await expect
    .poll(
      async () => {
        const ack = await h.command(text, USERS.outsider, channel);
        answered = await answerOf(h, ack);
        return ack.body !== '';
      },
      { timeout: 10_000, interval: 20 },
    )
    .toBe(true);
  return answered;
}

/** The instant a list says it was read ("as of", Slack's date token), in epoch ms. */
function asOf(answer: string): number {
  const seconds = /<!date\^(\d+)\^\{time_secs\}/.exec(answer)?.[1];
  if (!seconds) throw new Error(`no "as of" in ${answer}`);
  return Number(seconds) * 1000;
}

async function scrape(h: Harness): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${h.bot.port}/metrics`);
  return response.text();
}

const sample = (text: string, series: string) =>
  Number(
    text
      .split('\n')
      .find((line) => line.startsWith(`${series} `))
      ?.slice(series.length + 1) ?? 0,
  );

describe('a list answered again by the acknowledging thread', () => {
  it('answers the same list to anyone, in the acknowledgement, without reading again', async () => {
    const h = await harness();
    const first = await answerOf(h, await h.command('list'));
    expect(first).toContain('orders-prod');
    const fromThread = await untilAnsweredInAck(h);
    expect(fromThread).toBe(first);
    expect(listReads(h)).toBe(1);

    // Without ORGANIZATIONS_FILE every channel sees the same list: it is given in any channel.
    const elsewhere = await h.command('list', USERS.requester, 'C0ELSEWHERE');
    expect(elsewhere.body).not.toBe('');
    expect(await answerOf(h, elsewhere)).toBe(first);
    // With other filters the command is run as always (and answered the same way).
    const filtered = await h.command('list tag:env=prod', USERS.requester);
    expect(filtered.body).toBe('');
    expect(await answerText(h, filtered)).toContain('orders-prod');
  });

  it('never answers a list older than a change the bot has applied since', async () => {
    const h = await harness();
    expect(await untilAnsweredInAck(h)).toContain('orders-staging');
    const { id } = await requestChange(h, 'rename orders-staging orders-stage-2');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'));

    const after = await h.command('list', USERS.outsider);
    expect(after.body).toBe('');
    const answer = await answerText(h, after);
    expect(answer).toContain('orders-stage-2');
    expect(answer).not.toContain('orders-staging');
    // And the new list is the one given again.
    expect(await untilAnsweredInAck(h)).toContain('orders-stage-2');
  });

  it('never answers a list read longer ago than the cache window', async () => {
    const h = await harness({ env: { CLICKHOUSE_CACHE_SECONDS: '1' } });
    await untilAnsweredInAck(h);
    const started = Date.now();
    let inAck = 0;
    while (Date.now() - started < 3_000) {
      const ack = await h.command('list', USERS.outsider);
      const answer = await answerText(h, ack);
      if (ack.body === '') continue;
      inAck += 1;
      // "as of" is in whole seconds: the read was at most 1 s (the window) before, plus that second.
      expect(Date.now() - asOf(answer)).toBeLessThan(2_000);
    }
    expect(inAck).toBeGreaterThan(0);
    expect(listReads(h)).toBeGreaterThanOrEqual(3);
  });

  it('gives nothing again with CLICKHOUSE_CACHE_SECONDS=0: every list is read', async () => {
    const h = await harness({ env: { CLICKHOUSE_CACHE_SECONDS: '0' } });
    for (let i = 0; i < 5; i += 1) {
      const ack = await h.command('list', USERS.outsider);
      expect(ack.body).toBe('');
      await answerText(h, ack);
    }
    expect(listReads(h)).toBe(5);
  });

  it('counts the lists it answered as commands, and on their own', async () => {
    const h = await harness();
    await answerText(h, await h.command('list'));
    await untilAnsweredInAck(h);
    await untilAnsweredInAck(h);
    const lists = h.slack.callsOf('response_url').length;
    const inAck = h.slack.callsOf('response_url', (a) => a.inAck === true).length;
    expect(inAck).toBeGreaterThanOrEqual(2);
    // The thread reports at most once a second.
    await expect
      .poll(async () => sample(await scrape(h), 'clickhouse_bot_commands_answered_in_ack_total{command="list"}'), {
        timeout: 5_000,
      })
      .toBe(inAck);
    const metrics = await scrape(h);
    expect(sample(metrics, 'clickhouse_bot_commands_total{command="list"}')).toBe(lists);
    expect(sample(metrics, 'clickhouse_bot_ack_seconds_count')).toBe(lists);
  });
});

describe('ready answers and ORGANIZATIONS_FILE', () => {
  it('stops answering a list in a channel once a reload no longer allows it there', async () => {
    const channels = { [CHANNEL]: {}, C0DATA: { allow: ['list', 'show'] } };
    const h = await harness({ organizations: [{ name: 'analytics', channels }] });
    expect(await untilAnsweredInAck(h, 'list', 'C0DATA')).toContain('orders-prod');
    // Channels have organizations and rules of their own here: another channel's list is its own.
    const other = await h.command('list', USERS.outsider, CHANNEL);
    expect(other.body).toBe('');
    expect(await answerText(h, other)).toContain('orders-prod');

    await h.organizationsFile?.write([{ name: 'analytics', channels: { ...channels, C0DATA: { allow: ['show'] } } }]);
    expect((await h.bot.reloadOrganizations()).ok).toBe(true);
    const ack = await h.command('list', USERS.outsider, 'C0DATA');
    expect(ack.body).toBe('');
    expect(await answerText(h, ack)).toContain('`list` is not allowed in this channel');
  });
});
