/**
 * Ready answers in the acknowledging thread (slack/ack-thread/ready-answers.ts), against a real
 * receiver and Bolt App on a real socket: an answer the main thread offers is given again in the
 * acknowledgement of the very same command only, never after its time, never once anything it came
 * from changed, and the thread keeps a bounded number of them. Each "not given" below is checked
 * after a later offer was seen given: offers reach the thread in order.
 */
import { App } from '@slack/bolt';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { slackSignatureHeaders } from '../../src/playground/signing.js';
import { AckThreadReceiver, type SocketLimits } from '../../src/slack/ack-thread/receiver.js';
import { ReadyAnswers, type ReadyAnswerKey } from '../../src/slack/ack-thread/ready-answers.js';
import { recordingLogger } from '../support/ack-thread.js';

const SECRET = 'ready-answers-test-secret';

interface Running {
  receiver: AckThreadReceiver;
  ready: ReadyAnswers;
  port: number;
  /** Texts of the commands that reached the App's listener (after their acknowledgement). */
  reached: string[];
  reported: Array<Record<string, number>>;
  acks: number[];
}

const running: Running[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.receiver.stop()));
});

async function start(limits: Partial<SocketLimits> = {}): Promise<Running> {
  const ready = new ReadyAnswers();
  const reported: Array<Record<string, number>> = [];
  const acks: number[] = [];
  const logger = recordingLogger([]);
  const receiver = new AckThreadReceiver({
    signingSecret: SECRET,
    port: 0,
    host: '127.0.0.1',
    logger,
    routes: [],
    limits,
    readyAnswers: ready,
    onReadyAnswers: (counts) => reported.push(counts),
    onAck: (seconds) => acks.push(seconds),
  });
  const app = new App({
    receiver,
    logger,
    authorize: () => Promise.resolve({ botToken: 'xoxb-ready', botId: 'B0', botUserId: 'U0BOT' }),
  });
  const reached: string[] = [];
  app.command('/clickhouse', async ({ command, ack }) => {
    await ack();
    reached.push(command.text);
  });
  const port = await receiver.start();
  const r = { receiver, ready, port, reached, reported, acks };
  running.push(r);
  return r;
}

const KEY: ReadyAnswerKey = { teamId: 'T1', channelId: 'C1', command: '/clickhouse', text: 'list' };

async function command(port: number, key: Partial<ReadyAnswerKey> = {}, user = 'U1') {
  const k = { ...KEY, ...key };
  const body = new URLSearchParams({
    command: k.command,
    text: k.text,
    user_id: user,
    channel_id: k.channelId,
    team_id: k.teamId,
    response_url: 'http://127.0.0.1:9/unused',
    trigger_id: '1.2',
  }).toString();
  const headers = { 'content-type': 'application/x-www-form-urlencoded', ...slackSignatureHeaders(body, SECRET) };
  const response = await request(`http://127.0.0.1:${port}/slack/events`, { method: 'POST', body, headers });
  return { status: response.statusCode, type: response.headers['content-type'], body: await response.body.text() };
}

const answer = (text: string) => JSON.stringify({ response_type: 'ephemeral', text });
const offer = (r: Running, key: Partial<ReadyAnswerKey>, text: string, untilMs = 60_000, everyChannel = false) =>
  r.ready.offerFor({ ...KEY, ...key }, 'list')?.(answer(text), Date.now() + untilMs, everyChannel);

/** Resolves once the thread gives the answer offered for `key` (offers cross by message). */
async function untilGiven(r: Running, key: Partial<ReadyAnswerKey>, text: string): Promise<void> {
  await expect.poll(async () => (await command(r.port, key)).body, { timeout: 5_000, interval: 10 }).toBe(answer(text));
}

describe('ready answers in the acknowledging thread', () => {
  it('gives the offered answer to the same command in the same channel by anyone, and to nothing else', async () => {
    const r = await start();
    offer(r, {}, 'the list');
    await untilGiven(r, {}, 'the list');
    const again = await command(r.port, {}, 'U2-someone-else');
    expect(again).toStrictEqual({ status: 200, type: 'application/json', body: answer('the list') });

    for (const other of [
      { channelId: 'C2' },
      { teamId: 'T2' },
      { text: 'list tag:env=prod' },
      { text: 'list ' },
      { command: '/other' },
    ]) {
      expect((await command(r.port, other)).body, JSON.stringify(other)).toBe('');
    }
    // Not given: handed over to the App as any command.
    await expect.poll(() => r.reached).toEqual(expect.arrayContaining(['list tag:env=prod', 'list ']));
  });

  it('gives an answer offered for every channel in any channel of the team, and a channel’s own first', async () => {
    const r = await start();
    offer(r, {}, 'everywhere', 60_000, true);
    await untilGiven(r, { channelId: 'C-ANY' }, 'everywhere');
    expect((await command(r.port, { channelId: 'C1' })).body).toBe(answer('everywhere'));
    for (const other of [{ teamId: 'T2' }, { text: 'list tag:env=prod' }, { command: '/other' }])
      expect((await command(r.port, { ...other, channelId: 'C-ANY' })).body, JSON.stringify(other)).toBe('');
    // A channel's own answer goes before the one for every channel.
    offer(r, { channelId: 'C1' }, 'only here');
    await untilGiven(r, { channelId: 'C1' }, 'only here');
    expect((await command(r.port, { channelId: 'C-ANY' })).body).toBe(answer('everywhere'));
  });

  it('never gives an answer once what it came from changed, nor one offered before the change', async () => {
    const r = await start();
    const bound = r.ready.offerFor(KEY, 'list');
    offer(r, {}, 'before');
    await untilGiven(r, {}, 'before');
    r.ready.outdate();
    expect((await command(r.port)).body).toBe('');
    // Bound before the change, offered after it: dropped, though it reaches the thread's side.
    bound?.(answer('read before the change'), Date.now() + 60_000, false);
    offer(r, { text: 'sentinel' }, 'sentinel');
    await untilGiven(r, { text: 'sentinel' }, 'sentinel');
    expect((await command(r.port)).body).toBe('');
  });

  it('stops giving an answer at its time', async () => {
    const r = await start();
    offer(r, {}, 'short-lived', 300);
    await untilGiven(r, {}, 'short-lived');
    await expect.poll(async () => (await command(r.port)).body, { timeout: 5_000, interval: 50 }).toBe('');
    // An answer whose time has passed is never offered.
    expect(r.ready.offerFor(KEY, 'list')).toBeDefined();
    r.ready.offerFor(KEY, 'list')?.(answer('already old'), Date.now() - 1, false);
    offer(r, { text: 'sentinel' }, 'sentinel');
    await untilGiven(r, { text: 'sentinel' }, 'sentinel');
    expect((await command(r.port)).body).toBe('');
  });

  it('keeps at most so many answers and bytes: the oldest give way, an answer too big is not kept', async () => {
    const r = await start({ readyAnswersMax: 3, readyAnswersMaxBytes: 450 });
    for (const text of ['a', 'b', 'c', 'd']) offer(r, { text }, `answer ${text}`);
    await untilGiven(r, { text: 'd' }, 'answer d');
    expect((await command(r.port, { text: 'a' })).body).toBe('');
    for (const text of ['b', 'c']) expect((await command(r.port, { text })).body).toBe(answer(`answer ${text}`));

    offer(r, { text: 'huge' }, 'x'.repeat(500));
    offer(r, { text: 'big' }, 'y'.repeat(350));
    await untilGiven(r, { text: 'big' }, 'y'.repeat(350));
    expect((await command(r.port, { text: 'huge' })).body).toBe('');
    // 389 bytes and its key's 31 of 450: the others (47 bytes and a key of 29 each) gave way.
    for (const text of ['b', 'c', 'd']) expect((await command(r.port, { text })).body).toBe('');
  });

  it("counts each answer's key in its bytes: long commands cannot keep more than the bytes allowed", async () => {
    const r = await start({ readyAnswersMaxBytes: 1_000 });
    const long = 'list ' + 'k'.repeat(600);
    offer(r, { text: `${long} 1` }, 'one');
    offer(r, { text: `${long} 2` }, 'two');
    await untilGiven(r, { text: `${long} 2` }, 'two');
    // Two keys of 600 bytes and more are over 1,000 bytes, however small their answers.
    expect((await command(r.port, { text: `${long} 1` })).body).toBe('');
  });

  it('reports what it answered, by label, with each acknowledgement’s time', async () => {
    const r = await start();
    offer(r, {}, 'counted');
    await untilGiven(r, {}, 'counted');
    await command(r.port);
    await command(r.port);
    await expect
      .poll(() => r.reported.reduce((sum, counts) => sum + (counts.list ?? 0), 0), { timeout: 5_000 })
      .toBeGreaterThanOrEqual(3);
    const given = r.reported.reduce((sum, counts) => sum + (counts.list ?? 0), 0);
    // Every request acknowledged is timed: the ones the App saw, and the ones given an answer.
    expect(r.acks.length).toBe(given + r.reached.length);
    expect(Object.keys(Object.assign({}, ...r.reported) as Record<string, number>)).toStrictEqual(['list']);
  });

  it('tells a command that repeats from one asked once, in any channel, until something changes', () => {
    const ready = new ReadyAnswers();
    expect(ready.askedBefore(KEY)).toBe(false);
    expect(ready.askedBefore(KEY)).toBe(true);
    // Counted across channels (whether an answer holds in every channel is known only later).
    expect(ready.askedBefore({ ...KEY, channelId: 'C2' })).toBe(true);
    expect(ready.askedBefore({ ...KEY, text: 'list tag:a' })).toBe(false);
    ready.outdate();
    expect(ready.askedBefore(KEY)).toBe(false);
    expect(ready.askedBefore(KEY)).toBe(true);
    // Bounded: thousands of one-off commands forget the others, and are forgotten in turn.
    for (let i = 0; i < 5_000; i += 1) ready.askedBefore({ ...KEY, text: `list tag:n=${i}` });
    expect(ready.askedBefore(KEY)).toBe(false);
  });

  it('offers nothing without a thread to give it (Socket Mode)', () => {
    expect(new ReadyAnswers().offerFor(KEY, 'list')).toBeUndefined();
  });
});
