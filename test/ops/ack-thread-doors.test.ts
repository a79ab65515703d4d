/**
 * The acknowledging thread's socket faces the internet: what anyone can send without Slack's
 * signing secret must cost the bot nothing (no body read, no connection held past a few
 * seconds), and a signed body of any shape must not take the thread down.
 */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { slackSignatureHeaders } from '../../src/playground/signing.js';
import { SOCKET_LIMITS } from '../../src/slack/ack-thread/receiver.js';
import { postHead, rawRequest, SECRET, startThread, type RunningThread } from '../support/ack-thread.js';

const running: RunningThread[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.receiver.stop()));
});

async function start(...args: Parameters<typeof startThread>): Promise<RunningThread> {
  const thread = await startThread(...args);
  running.push(thread);
  return thread;
}

/** Settles with `what` after `ms`: a bound on a wait for an answer that must come at once. */
const noAnswerWithin = <T>(ms: number, what: T) => new Promise<T>((resolve) => setTimeout(() => resolve(what), ms));

const FORM = 'application/x-www-form-urlencoded';
const freshSignature = () => slackSignatureHeaders('not the body that follows', SECRET);

async function post(port: number, body: string, contentType = FORM) {
  const response = await request(`http://127.0.0.1:${port}/slack/events`, {
    method: 'POST',
    body,
    headers: { 'content-type': contentType, ...slackSignatureHeaders(body, SECRET) },
  });
  return { status: response.statusCode, body: await response.body.text() };
}

const command = (text: string) =>
  new URLSearchParams({ command: '/clickhouse', text, user_id: 'U1', channel_id: 'C1', team_id: 'T1' }).toString();

describe("the acknowledging thread's socket", () => {
  it('refuses a request without Slack signature headers at once, without waiting for its 4 MB body, and closes it', async () => {
    const { port, logs } = await start();
    const exchange = rawRequest(port, postHead(4_000_000));
    expect(await Promise.race([exchange.status, noAnswerWithin(2_000, 'no answer')])).toBe(401);
    await exchange.closed;
    expect(logs.join('\n')).toContain('Refused a request: the request has no Slack signature headers.');
  });

  it('refuses a request whose signature timestamp is stale at once, without reading its body', async () => {
    const { port } = await start();
    const stale = String(Math.floor(Date.now() / 1000) - 6 * 60);
    const headers = slackSignatureHeaders('anything', SECRET, stale);
    const exchange = rawRequest(port, postHead(1_000_000, headers));
    expect(await Promise.race([exchange.status, noAnswerWithin(2_000, 'no answer')])).toBe(401);
    await exchange.closed;
  });

  it("refuses at once a body declared larger than Slack's largest, and stops reading one that grows past it", async () => {
    const { port } = await start();
    const declared = rawRequest(port, postHead(SOCKET_LIMITS.bodyLimit + 1, freshSignature()));
    expect(await Promise.race([declared.status, noAnswerWithin(2_000, 'no answer')])).toBe(413);
    await declared.closed;

    const head = postHead(0, freshSignature()).replace('content-length: 0', 'transfer-encoding: chunked');
    const size = SOCKET_LIMITS.bodyLimit + 64 * 1024;
    const chunk = Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), Buffer.alloc(size, 'a')]);
    const growing = rawRequest(port, head, chunk);
    expect(await Promise.race([growing.status, noAnswerWithin(5_000, 'no answer')])).toBe(413);
    await growing.closed;
  });

  it('closes a connection whose headers do not arrive in time, and one whose body stalls', async () => {
    const { port } = await start(undefined, { headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const headless = rawRequest(port, 'POST /slack/events HTTP/1.1\r\nhost: 127.0.0.1\r\n');
    const bodiless = rawRequest(port, postHead(100, freshSignature()), Buffer.from('token=x'));
    const started = performance.now();
    await Promise.all([headless.closed, bodiless.closed]);
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it('closes connections past its cap at once, and takes new ones when those close', async () => {
    const { port } = await start(undefined, { maxConnections: 3 });
    const held = [1, 2, 3].map(() => rawRequest(port, 'POST /slack/events HTTP/1.1\r\n'));
    // The three are accepted: an answer to a probe on one of them would need the whole head.
    await Promise.all(held.map((h) => new Promise((resolve) => h.socket.once('connect', resolve))));
    const extra = rawRequest(port, 'GET /livez HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    expect(await Promise.race([extra.status, noAnswerWithin(2_000, 'no answer')])).toBeUndefined();
    await extra.closed;
    for (const h of held) h.socket.destroy();
    await Promise.all(held.map((h) => h.closed));
    const livez = async () => {
      const answer = await request(`http://127.0.0.1:${port}/livez`);
      await answer.body.dump();
      return answer.statusCode;
    };
    await expect.poll(livez).toBe(200);
  });

  it('answers a signed payload=null with 400 and keeps serving on the same thread', async () => {
    const handled: string[] = [];
    const { port, receiver } = await start((app) =>
      app.command('/clickhouse', async ({ ack, command: c }) => {
        await ack();
        handled.push(c.text);
      }),
    );
    const thread = receiver.serving;
    expect((await post(port, 'payload=null')).status).toBe(400);
    expect((await post(port, command('after'))).status).toBe(200);
    await expect.poll(() => handled).toEqual(['after']);
    expect(receiver.serving).toBe(thread);
  });

  it("answers Slack's unsigned ssl_check with 200, as Bolt does, and nothing else unsigned", async () => {
    const { port } = await start();
    const check = await request(`http://127.0.0.1:${port}/slack/events`, {
      method: 'POST',
      body: 'token=abc&ssl_check=1',
      headers: { 'content-type': FORM },
    });
    await check.body.dump();
    expect(check.statusCode).toBe(200);
    const smuggled = await request(`http://127.0.0.1:${port}/slack/events`, {
      method: 'POST',
      body: 'payload=%7B%22type%22%3A%22block_actions%22%7D',
      headers: { 'content-type': FORM },
    });
    await smuggled.body.dump();
    expect(smuggled.statusCode).toBe(401);
  });
});
