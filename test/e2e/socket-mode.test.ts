/**
 * Socket Mode end to end: the real bot (SLACK_APP_TOKEN set) connects to a local Socket Mode
 * server through the fake Web API's apps.connections.open, receives envelopes, acknowledges each
 * with its envelope_id within 3 s, and answers through the same fake Slack as in HTTP mode.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { ACTION_APPROVE, ACTION_CANCEL, ACTION_REJECT } from '../../src/core/render/change.js';
import { BLOCK } from '../support/blocks.js';
import { SocketModeServer } from '../support/socket-mode-server.js';
import {
  answerText,
  CHANNEL,
  clickPayload,
  commandFields,
  requestChange,
  textOf,
  useHarnesses,
  USERS,
  type Harness,
  type HarnessOptions,
} from './harness.js';

const servers: SocketModeServer[] = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()?.close();
});
const harness = useHarnesses();

async function socketBot(
  options: HarnessOptions = {},
  server?: SocketModeServer,
): Promise<{ h: Harness; server: SocketModeServer }> {
  const socket = server ?? (await SocketModeServer.start());
  if (!server) servers.push(socket);
  const open = socket.openSockets().length;
  const h = await harness({ ...options, socketMode: socket });
  await socket.waitForOpen(open + 1);
  return { h, server: socket };
}

const patches = (h: Harness) => h.simulator.requests.filter((r) => r.method === 'PATCH');
const EVERY_2S = '*/2 * * * * *';

async function probe(h: Harness, path: string) {
  const response = await request(`http://127.0.0.1:${h.bot.port}${path}`);
  return { status: response.statusCode, body: (await response.body.json()) as Record<string, unknown> };
}

describe('Socket Mode', () => {
  it('connects through apps.connections.open at SLACK_API_URL with the app token, and is ready once connected', async () => {
    const { h } = await socketBot();
    const opened = h.slack.callsOf('apps.connections.open');
    expect(opened).toHaveLength(1);
    expect(h.bot.socketOpen?.()).toBe(true);
    expect(await probe(h, '/readyz')).toMatchObject({
      status: 200,
      body: { ok: true, store: 'ok', slack: 'connected' },
    });
    expect((await probe(h, '/livez')).status).toBe(200);
    expect(await probe(h, '/healthz')).toEqual({ status: 200, body: { ok: true, store: 'ok' } });
  });

  it('answers every command, each envelope acknowledged with its id within 3 s', async () => {
    const { h, server } = await socketBot();
    const commands = [
      'help',
      'list',
      'list tag:env=prod',
      'show orders-prod',
      'pending',
      'history',
      'schedule list',
      'nonsense',
      'summary',
    ];
    for (const text of commands) {
      const ack = await h.command(text);
      expect(ack.status).toBe(200);
      expect(await answerText(h, ack)).not.toBe('');
    }
    expect(server.missed).toEqual([]);
    expect(server.acks.length).toBeGreaterThanOrEqual(commands.length);
    const posted = await h.slack.waitFor(
      'chat.postMessage',
      (a) => a.channel === CHANNEL && textOf(a.blocks).includes('services in the organization'),
    );
    expect(posted).toBeDefined();
    const { id } = await requestChange(h, 'rename metrics-prod metrics-main');
    expect(await answerText(h, await h.command('pending'))).toContain(id);
  });

  it('opens the edit modal, shows invalid input inline in the ack, and turns a valid submission into a request', async () => {
    const { h } = await socketBot();
    await h.command('edit orders-prod');
    const filled = await h.slack.waitFor('views.update');
    const view = filled.args.view as Record<string, unknown>;

    const invalid = await h.submitView(
      view,
      { [BLOCK.ipAdd]: { value: { type: 'plain_text_input', value: '10.0.0.0/33 bad mask' } } },
      USERS.requester,
    );
    const body = JSON.parse(invalid.body) as { response_action: string; errors: Record<string, string> };
    expect(body.response_action).toBe('errors');
    expect(body.errors[BLOCK.ipAdd]).toContain('10.0.0.0/33');
    expect(h.slack.callsOf('chat.postMessage')).toHaveLength(0);

    const valid = await h.submitView(
      view,
      { [BLOCK.name]: { value: { type: 'plain_text_input', value: 'orders primary' } } },
      USERS.requester,
    );
    expect(valid.body).toBe('');
    const posted = await h.slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes('orders primary'));
    expect(posted.args.channel).toBe(CHANNEL);
  });

  it('approves (exactly one PATCH), rejects and cancels over envelopes', async () => {
    const { h } = await socketBot();
    const approved = await requestChange(h, 'ip add orders-prod 10.1.0.0/16 office');
    const click = await h.click(ACTION_APPROVE, approved.id, USERS.approver);
    expect(click.status).toBe(200);
    await h.slack.waitFor(
      'chat.update',
      (a) => textOf(a.blocks).includes(approved.id) && textOf(a.blocks).includes('Applied'),
    );
    expect(patches(h)).toHaveLength(1);

    const rejected = await requestChange(h, 'rename metrics-prod metrics-x');
    await h.click(ACTION_REJECT, rejected.id, USERS.approver);
    await h.slack.waitFor(
      'chat.update',
      (a) => textOf(a.blocks).includes(rejected.id) && textOf(a.blocks).includes('Rejected'),
    );
    const cancelled = await requestChange(h, 'endpoint orders-prod mysql on');
    await h.click(ACTION_CANCEL, cancelled.id, USERS.requester);
    await h.slack.waitFor(
      'chat.update',
      (a) => textOf(a.blocks).includes(cancelled.id) && textOf(a.blocks).includes('Cancelled'),
    );
    expect(patches(h)).toHaveLength(1);
  });

  it('posts a scheduled summary', async () => {
    const { h } = await socketBot();
    expect(await answerText(h, await h.command(`schedule add "${EVERY_2S}"`))).toContain('Scheduled a summary');
    const headline = await h.slack.waitFor(
      'chat.postMessage',
      (a) => a.channel === CHANNEL && textOf(a.blocks).includes('Scheduled ClickHouse Cloud summary'),
      { timeoutMs: 6_000 },
    );
    expect(textOf(headline.args.blocks)).toContain('12 services');
  });

  it('reconnects after a `disconnect` message and after a dropped TCP connection, losing nothing', async () => {
    const { h, server } = await socketBot();
    const { id } = await requestChange(h, 'rename metrics-prod metrics-after-refresh');

    // Slack recycles the connection: it says so, then the bot opens a new one.
    const first = server.openSockets()[0]!.id;
    server.requestRefresh(first);
    await server.waitForConnectionAfter(first);
    await expect.poll(() => h.bot.socketOpen?.(), { timeout: 10_000 }).toBe(true);
    expect(h.slack.callsOf('apps.connections.open').length).toBeGreaterThanOrEqual(2);
    const click = await h.click(ACTION_APPROVE, id, USERS.approver);
    expect(click.status).toBe(200);
    await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'));

    // The network drops the connection mid-flow: a request is asked, the TCP connection dies before
    // its approval arrives; readiness says so until the bot is back, then the approval goes through.
    const second = await requestChange(h, 'ip add orders-prod 10.9.0.0/16 after drop');
    const current = server.openSockets()[0]!.id;
    server.drop(current);
    await expect.poll(() => h.bot.socketOpen?.(), { timeout: 10_000 }).toBe(false);
    expect((await probe(h, '/readyz')).status).toBe(503);
    expect((await probe(h, '/livez')).status).toBe(200);
    await server.waitForConnectionAfter(current);
    await expect.poll(() => h.bot.socketOpen?.(), { timeout: 10_000 }).toBe(true);
    expect((await probe(h, '/readyz')).status).toBe(200);
    await h.click(ACTION_APPROVE, second.id, USERS.approver);
    await h.slack.waitFor(
      'chat.update',
      (a) => textOf(a.blocks).includes(second.id) && textOf(a.blocks).includes('Applied'),
    );
    expect(patches(h)).toHaveLength(2);
    expect(await h.bot.changeStore.listPending(CHANNEL, Date.now())).toEqual([]);
  });

  it('does not apply a change twice when an envelope is re-delivered after a missed ack', async () => {
    const { h, server } = await socketBot();
    const { id } = await requestChange(h, 'ip add orders-prod 10.2.0.0/16 once');
    const connection = server.openSockets()[0]!.id;
    const { payload } = clickPayload(h.slack, ACTION_APPROVE, id, USERS.approver);
    // The connection dies right after the envelope is sent: the ack, if any, is lost with it.
    const lost = server
      .deliver('interactive', payload, { connection, envelopeId: 'env-approve-1' })
      .catch((error: unknown) => error);
    server.drop(connection);
    await lost;
    const reconnected = await server.waitForConnectionAfter(connection);
    // Slack re-delivers the same envelope on the new connection, marked as a retry.
    const retry = await server.deliver('interactive', payload, {
      connection: reconnected,
      envelopeId: 'env-approve-1',
      retryAttempt: 1,
    });
    expect(retry.envelopeId).toBe('env-approve-1');
    await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'));
    await h.bot.changeRequests.drain();
    expect(patches(h)).toHaveLength(1);
  });

  it('spreads envelopes over two replicas connected at once: every request approved exactly once', async () => {
    const server = await SocketModeServer.start();
    servers.push(server);
    const { h: a } = await socketBot({}, server);
    const { h: b } = await socketBot({ slack: a.slack, simulator: a.simulator, keyPrefix: a.keyPrefix }, server);
    const [first, second] = server.openSockets();
    expect(first && second).toBeTruthy();
    const ids: string[] = [];
    // Different services, so no request goes stale because of another.
    for (const service of ['orders-prod', 'events-prod', 'billing-prod', 'metrics-prod'])
      ids.push((await requestChange(a, `ip add ${service} 10.20.0.0/16 replica test`)).id);
    // Every request gets approve clicks on both connections at once.
    const clicks = ids.flatMap((id) =>
      [first!.id, second!.id, first!.id].map((connection, n) =>
        server.deliver(
          'interactive',
          clickPayload(a.slack, ACTION_APPROVE, id, n === 1 ? USERS.second : USERS.approver).payload,
          { connection },
        ),
      ),
    );
    const acks = await Promise.all(clicks);
    expect(new Set(acks.map((ack) => ack.connection))).toEqual(new Set([first!.id, second!.id]));
    for (const id of ids)
      await a.slack.waitFor(
        'chat.update',
        (args) => textOf(args.blocks).includes(id) && textOf(args.blocks).includes('Applied'),
      );
    await Promise.all([a.bot.changeRequests.drain(), b.bot.changeRequests.drain()]);
    expect(patches(a)).toHaveLength(ids.length);
    expect(server.missed).toEqual([]);
  });

  it('sends commands typed while connected on either connection', async () => {
    const server = await SocketModeServer.start();
    servers.push(server);
    const { h } = await socketBot({}, server);
    await socketBot({ slack: h.slack, simulator: h.simulator, keyPrefix: h.keyPrefix }, server);
    for (const connection of server.openSockets()) {
      const { fields, responseUrlId } = commandFields(h.slack, 'list');
      const ack = await server.deliver('slash_commands', fields, { connection: connection.id });
      expect(ack.connection).toBe(connection.id);
      await h.slack.waitFor('response_url', (args) => args.responseUrlId === responseUrlId);
    }
  });
});
