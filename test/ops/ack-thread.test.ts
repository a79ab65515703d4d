/**
 * The acknowledging thread (HTTP mode), against a real Bolt App on a real socket: requests are
 * acknowledged while the main thread is busy with other work, a modal submission's and an external
 * select's acknowledgement still carries what its listener answered, a listener's late content
 * reaches the command's response_url (any other kind's fails loudly), and a thread that dies is
 * started again on the same port.
 */
import { recordingLogger } from '../support/ack-thread.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { App } from '@slack/bolt';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { slackSignatureHeaders } from '../../src/playground/signing.js';
import { AckThreadReceiver, BUSY_TEXT } from '../../src/slack/ack-thread/receiver.js';
import { ReadyAnswers } from '../../src/slack/ack-thread/ready-answers.js';

const SECRET = 'ack-thread-test-secret';
const FORM = 'application/x-www-form-urlencoded';

interface Running {
  app: App;
  receiver: AckThreadReceiver;
  port: number;
  logs: string[];
}

const running: Running[] = [];
const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.receiver.stop()));
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function start(register: (app: App) => void, maxPending?: number, readyAnswers?: ReadyAnswers): Promise<Running> {
  const logs: string[] = [];
  const logger = recordingLogger(logs);
  const routes = [
    {
      path: '/livez',
      method: ['GET'],
      answer: () => Promise.resolve({ status: 200, contentType: 'application/json', body: '{"ok":true}' }),
    },
  ];
  const receiver = new AckThreadReceiver({
    signingSecret: SECRET,
    port: 0,
    host: '127.0.0.1',
    logger,
    routes,
    ...(maxPending ? { maxPending } : {}),
    ...(readyAnswers ? { readyAnswers } : {}),
  });
  // A fixed authorization: these tests need no Web API.
  const app = new App({
    receiver,
    logger,
    authorize: () => Promise.resolve({ botToken: 'xoxb-ack-thread', botId: 'B0', botUserId: 'U0BOT' }),
  });
  register(app);
  const port = await receiver.start();
  const r = { app, receiver, port, logs };
  running.push(r);
  return r;
}

const commandBody = (text: string, responseUrl = 'http://127.0.0.1:9/unused') =>
  new URLSearchParams({
    command: '/clickhouse',
    text,
    user_id: 'U1',
    channel_id: 'C1',
    team_id: 'T1',
    response_url: responseUrl,
    trigger_id: '1.2',
  }).toString();

async function post(port: number, body: string, signed = true) {
  const headers = { 'content-type': FORM, ...(signed ? slackSignatureHeaders(body, SECRET) : {}) };
  const response = await request(`http://127.0.0.1:${port}/slack/events`, { method: 'POST', body, headers });
  return { status: response.statusCode, body: await response.body.text() };
}

/** A server standing in for Slack's response_url; resolves with the first body it receives. */
async function responseUrl(): Promise<{ url: string; received: Promise<unknown> }> {
  let deliver: (body: unknown) => void = () => undefined;
  const received = new Promise<unknown>((resolve) => (deliver = resolve));
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      res.end();
      deliver(JSON.parse(text));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/respond`, received };
}

/** A submission of the modal with callback id `edit`, form-encoded as Slack sends it. */
const SUBMISSION = new URLSearchParams({
  payload: JSON.stringify({
    type: 'view_submission',
    user: { id: 'U1' },
    team: { id: 'T1' },
    view: { id: 'V1', callback_id: 'edit', state: { values: {} } },
  }),
}).toString();

interface Sent {
  status: number;
  ms: number;
  body: string;
}

/**
 * Sends `count` signed commands from a thread of its own, one every `everyMs`, and resolves with
 * each acknowledgement's status, latency in ms and body. `blockUntilSent` holds this thread (no
 * turn of its event loop at all, as if rendering or parsing held it) until the last is answered.
 */
function sendFromAnotherThread(
  port: number,
  count: number,
  everyMs: number,
  text: (i: number) => string = (i) => `help ${i}`,
): { blockUntilSent: () => void; results: Promise<Sent[]> } {
  const bodies = Array.from({ length: count }, (_, i) => commandBody(text(i)));
  const requests = bodies.map((body) => ({
    body,
    headers: { 'content-type': FORM, ...slackSignatureHeaders(body, SECRET) },
  }));
  const sent = new Int32Array(new SharedArrayBuffer(4));
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const { setTimeout: sleep } = require('node:timers/promises');
    (async () => {
      const results = [];
      for (const r of workerData.requests) {
        const started = performance.now();
        const response = await fetch(workerData.url, { method: 'POST', body: r.body, headers: r.headers });
        const body = await response.text();
        results.push({ status: response.status, ms: performance.now() - started, body });
        await sleep(workerData.everyMs);
      }
      Atomics.store(workerData.sent, 0, 1);
      Atomics.notify(workerData.sent, 0);
      parentPort.postMessage(results);
    })();`;
  const worker = new Worker(code, {
    eval: true,
    workerData: { url: `http://127.0.0.1:${port}/slack/events`, requests, everyMs, sent },
  });
  const results = new Promise<Sent[]>((resolve, reject) => {
    worker.on('message', (message: unknown) => resolve(message as Sent[]));
    worker.on('error', reject);
  });
  return { blockUntilSent: () => void Atomics.wait(sent, 0, 0, 30_000), results };
}

describe('the acknowledging thread', () => {
  it('acknowledges every command within a fraction of a second while the main thread is held for seconds', async () => {
    const handled: string[] = [];
    const { port } = await start((app) =>
      app.command('/clickhouse', async ({ ack, command }) => {
        await ack();
        handled.push(command.text);
      }),
    );
    const sender = sendFromAnotherThread(port, 10, 250);
    const heldFrom = performance.now();
    sender.blockUntilSent();
    expect(performance.now() - heldFrom).toBeGreaterThan(2_000);
    const results = await sender.results;
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    // Acknowledged by the main thread, the first would have waited until the last was sent.
    expect(Math.max(...results.map((r) => r.ms))).toBeLessThan(1_000);
    await expect.poll(() => handled.length).toBe(10);
  });

  it('refuses commands past the bound of requests handed over and not finished, with a sentence, and takes them again once the backlog is done', async () => {
    const handled: string[] = [];
    const { port } = await start(
      (app) =>
        app.command('/clickhouse', async ({ ack, command }) => {
          await ack();
          handled.push(command.text);
        }),
      5,
    );
    const sender = sendFromAnotherThread(port, 12, 0);
    // The main thread takes nothing off the thread's hands meanwhile.
    sender.blockUntilSent();
    const results = await sender.results;
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(200));
    expect(results.slice(0, 5).map((r) => r.body)).toEqual(Array(5).fill(''));
    for (const refused of results.slice(5))
      expect(JSON.parse(refused.body)).toEqual({ response_type: 'ephemeral', text: BUSY_TEXT });
    await expect.poll(() => handled.length).toBe(5);
    await expect.poll(async () => (await post(port, commandBody('after'))).body).toBe('');
    await expect.poll(() => handled).toContain('after');
  });

  it('answers a flood of the same list itself while the main thread is held, past the bound, once the list is ready', async () => {
    const ready = new ReadyAnswers();
    const { port } = await start((app) => app.command('/clickhouse', async ({ ack }) => ack()), 5, ready);
    const list = JSON.stringify({ response_type: 'ephemeral', text: '12 ClickHouse Cloud services' });
    ready.offerFor({ teamId: 'T1', channelId: 'C1', command: '/clickhouse', text: 'list' }, 'list')?.(
      list,
      Date.now() + 60_000,
      false,
    );
    await expect.poll(async () => (await post(port, commandBody('list'))).body).toBe(list);
    const sender = sendFromAnotherThread(port, 12, 0, () => 'list');
    // The main thread takes nothing off the thread's hands meanwhile: nothing is handed over.
    sender.blockUntilSent();
    const results = await sender.results;
    expect(results.map((r) => [r.status, r.body])).toEqual(Array(12).fill([200, list]));
  });

  it('answers a click past the bound privately, through its response_url', async () => {
    let finish: () => void = () => undefined;
    const unfinished = new Promise<void>((resolve) => (finish = resolve));
    const clicked: string[] = [];
    const { port } = await start((app) => {
      app.command('/clickhouse', async ({ ack }) => {
        await ack();
        await unfinished;
      });
      app.action('approve', async ({ ack }) => {
        await ack();
        clicked.push('approve');
      });
    }, 1);
    expect(await post(port, commandBody('slow'))).toEqual({ status: 200, body: '' });
    const target = await responseUrl();
    const click = {
      type: 'block_actions',
      user: { id: 'U1' },
      team: { id: 'T1' },
      response_url: target.url,
      actions: [{ action_id: 'approve', type: 'button', value: 'CR-1' }],
    };
    expect(await post(port, new URLSearchParams({ payload: JSON.stringify(click) }).toString())).toEqual({
      status: 200,
      body: '',
    });
    expect(await target.received).toEqual({ response_type: 'ephemeral', text: BUSY_TEXT, replace_original: false });
    finish();
    expect(clicked).toEqual([]);
  });

  it("answers a modal submission with what its listener acknowledged (the form's inline errors)", async () => {
    const { port } = await start((app) =>
      app.view('edit', async ({ ack }) => ack({ response_action: 'errors', errors: { name: 'Too long.' } })),
    );
    const answer = await post(port, SUBMISSION);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ response_action: 'errors', errors: { name: 'Too long.' } });
  });

  it("answers an external select's block_suggestion with the options its listener acknowledged", async () => {
    const { port } = await start((app) =>
      app.options('picker', async ({ ack }) =>
        ack({ options: [{ text: { type: 'plain_text', text: 'orders-prod' }, value: 'svc-1' }] }),
      ),
    );
    const suggestion = {
      type: 'block_suggestion',
      user: { id: 'U1' },
      team: { id: 'T1' },
      action_id: 'picker',
      block_id: 'b',
      value: 'ord',
    };
    const answer = await post(port, new URLSearchParams({ payload: JSON.stringify(suggestion) }).toString());
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({
      options: [{ text: { type: 'plain_text', text: 'orders-prod' }, value: 'svc-1' }],
    });
  });

  it('fails, loudly, a click acknowledged with content the thread can no longer send', async () => {
    const failures: string[] = [];
    const { port } = await start((app) => {
      // Bolt's types allow a click no content; a middleware or a cast still can pass some.
      const answerWithContent = (ack: unknown) => (ack as (content: unknown) => Promise<void>)({ text: 'unseen' });
      app.action('approve', async ({ ack }) => answerWithContent(ack));
      app.error((error) => Promise.resolve(void failures.push(error.message)));
    });
    const click = {
      type: 'block_actions',
      user: { id: 'U1' },
      team: { id: 'T1' },
      actions: [{ action_id: 'approve', type: 'button', value: 'CR-1' }],
    };
    expect(await post(port, new URLSearchParams({ payload: JSON.stringify(click) }).toString())).toEqual({
      status: 200,
      body: '',
    });
    await expect
      .poll(() => failures.join('\n'))
      .toContain('An acknowledgement with content for a block_actions request cannot reach Slack');
  });

  it('answers 500 to a submission whose listener fails before acknowledging, as Bolt does', async () => {
    const { port, logs } = await start((app) => {
      app.view('edit', () => Promise.reject(new Error('the listener broke')));
      app.error((error) => Promise.reject(error));
    });
    const answer = await post(port, SUBMISSION);
    expect(answer.status).toBe(500);
    expect(logs.join('\n')).toContain('the listener broke');
  });

  it("delivers a slash command's acknowledgement content to its response_url", async () => {
    const target = await responseUrl();
    const { port } = await start((app) =>
      app.command('/clickhouse', async ({ ack }) =>
        ack({ response_type: 'ephemeral', text: 'The bot is restarting.' }),
      ),
    );
    const answer = await post(port, commandBody('list', target.url));
    expect(answer).toEqual({ status: 200, body: '' });
    expect(await target.received).toEqual({ response_type: 'ephemeral', text: 'The bot is restarting.' });
  });

  it('refuses an unsigned request with 401, answers unknown paths 404 and the probes from the main thread', async () => {
    let handled = 0;
    const { port } = await start((app) => app.command('/clickhouse', async ({ ack }) => ((handled += 1), ack())));
    expect((await post(port, commandBody('list'), false)).status).toBe(401);
    const probe = await request(`http://127.0.0.1:${port}/livez`);
    expect({ status: probe.statusCode, body: await probe.body.text() }).toEqual({ status: 200, body: '{"ok":true}' });
    const nowhere = await request(`http://127.0.0.1:${port}/nowhere`);
    await nowhere.body.dump();
    expect(nowhere.statusCode).toBe(404);
    expect(handled).toBe(0);
  });

  it('says in a sentence that the port is taken, and leaves no thread behind', async () => {
    const busy = createServer();
    servers.push(busy);
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as AddressInfo).port;
    const receiver = new AckThreadReceiver({
      signingSecret: SECRET,
      port,
      host: '127.0.0.1',
      logger: recordingLogger([]),
      routes: [],
    });
    await expect(receiver.start()).rejects.toThrow(
      `Port ${port} on 127.0.0.1 is already in use: stop what uses it, or choose another port with PORT=${port + 1}.`,
    );
    const thread = receiver.serving;
    const exited = new Promise((resolve) => thread?.once('exit', resolve));
    await receiver.stop();
    await exited;
    expect(receiver.serving).toBeUndefined();
  });

  it('starts a thread that died again, on the same port', async () => {
    const { port, receiver, logs } = await start((app) => app.command('/clickhouse', async ({ ack }) => ack()));
    const first = receiver.serving;
    await first?.terminate();
    await expect.poll(() => logs.some((line) => line.includes(`starting it again on port ${port}`))).toBe(true);
    await expect.poll(() => receiver.serving !== first).toBe(true);
    // The new thread listens as soon as it has started; a refused connection before that is retried.
    await expect
      .poll(async () => (await post(port, commandBody('list')).catch(() => ({ status: 0 }))).status, { timeout: 5_000 })
      .toBe(200);
  });
});
