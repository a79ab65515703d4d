/**
 * Requests that did not come from Slack, or not in this form: forged signatures, replays of a
 * real request more than five minutes old, bodies altered after signing, missing or malformed
 * headers. For slash commands and for interactive payloads (an Approve click on a real pending
 * request, a modal submission), each must get 401 and change nothing: no answer to the
 * response_url, no Slack Web API call, no Cloud API call, the request still pending.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { EDIT_CALLBACK } from '../../src/core/render/modal.js';
import { BLOCK } from '../support/blocks.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import {
  CHANNEL,
  signatureHeaders,
  SIGNING_SECRET,
  startHarness,
  textOf,
  USERS,
  type Harness,
} from '../e2e/harness.js';
import { deleteKeysWithPrefix } from '../support/redis.js';

const FORM = 'application/x-www-form-urlencoded';
const now = () => Math.floor(Date.now() / 1000);

interface Attack {
  name: string;
  /** The body sent and the headers sent with it, from a genuine body. */
  build(genuine: string): { body: string; headers: Record<string, string> };
}

/** Signed as Slack would sign `body` at `timestamp`, with `secret`. */
const signed = (body: string, timestamp = String(now()), secret = SIGNING_SECRET): Record<string, string> => ({
  'content-type': FORM,
  ...signatureHeaders(body, timestamp, secret),
});
const signatureOf = (body: string): string => signed(body)['x-slack-signature'] ?? '';

const ATTACKS: Attack[] = [
  {
    name: 'signed with another secret',
    build: (body) => ({ body, headers: signed(body, String(now()), 'not-the-signing-secret') }),
  },
  {
    name: 'replayed: genuinely signed 6 minutes ago',
    build: (body) => ({ body, headers: signed(body, String(now() - 6 * 60)) }),
  },
  {
    name: 'replayed: genuinely signed an hour ago',
    build: (body) => ({ body, headers: signed(body, String(now() - 3600)) }),
  },
  {
    name: 'replayed with a fresh timestamp but the old signature',
    build: (body) => ({
      body,
      headers: { ...signed(body, String(now() - 6 * 60)), 'x-slack-request-timestamp': String(now()) },
    }),
  },
  {
    name: 'body altered after signing (one character)',
    build: (body) => ({ body: body.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')), headers: signed(body) }),
  },
  {
    name: 'body altered after signing (a field appended)',
    build: (body) => ({ body: `${body}&user_id=${USERS.approver}`, headers: signed(body) }),
  },
  { name: 'body swapped for another signed one', build: (body) => ({ body, headers: signed('token=x&text=help') }) },
  {
    name: 'no signature header',
    build: (body) => ({ body, headers: { 'content-type': FORM, 'x-slack-request-timestamp': String(now()) } }),
  },
  {
    name: 'no timestamp header',
    build: (body) => ({ body, headers: { 'content-type': FORM, 'x-slack-signature': signatureOf(body) } }),
  },
  { name: 'no Slack headers at all', build: (body) => ({ body, headers: { 'content-type': FORM } }) },
  { name: 'an empty signature', build: (body) => ({ body, headers: { ...signed(body), 'x-slack-signature': '' } }) },
  {
    name: 'a v1 signature',
    build: (body) => ({
      body,
      headers: { ...signed(body), 'x-slack-signature': signatureOf(body).replace(/^v0=/, 'v1=') },
    }),
  },
  {
    name: 'a truncated signature',
    build: (body) => ({ body, headers: { ...signed(body), 'x-slack-signature': signatureOf(body).slice(0, 40) } }),
  },
  {
    name: 'an upper-cased signature',
    build: (body) => ({
      body,
      headers: { ...signed(body), 'x-slack-signature': signatureOf(body).toUpperCase().replace(/^V0=/, 'v0=') },
    }),
  },
  {
    name: 'a timestamp that is not a number',
    build: (body) => ({ body, headers: { ...signed(body), 'x-slack-request-timestamp': 'now' } }),
  },
  {
    name: 'the signature of the body alone (no version, no timestamp)',
    build: (body) => ({
      body,
      headers: {
        'content-type': FORM,
        'x-slack-request-timestamp': String(now()),
        'x-slack-signature': `v0=${createHmac('sha256', SIGNING_SECRET).update(body).digest('hex')}`,
      },
    }),
  },
];

describe('requests that Slack did not sign as sent', () => {
  let h: Harness;
  let requestId: string;
  let messageTs: string;

  beforeAll(async () => {
    h = await startHarness();
    const ack = await h.command('rename sandbox-dev sandbox-renamed');
    const posted = await h.slack.waitFor('chat.postMessage', (args) => textOf(args.blocks).includes('Change request'));
    requestId = /CR-[0-9A-F]{10}/.exec(textOf(posted.args.blocks))?.[0] ?? '';
    messageTs = typeof posted.args.ts === 'string' ? posted.args.ts : '1700000000.000001';
    await h.slack.waitFor('response_url', (args) => args.responseUrlId === ack.responseUrlId);
    expect(requestId).toMatch(/^CR-/);
  });

  afterAll(async () => {
    await h?.stop();
    if (h) await deleteKeysWithPrefix(h.keyPrefix);
  });

  const commandBody = (text: string, responseUrlId = randomUUID()) =>
    new URLSearchParams({
      token: 'legacy-verification-token',
      team_id: 'T0TEAM',
      channel_id: CHANNEL,
      user_id: USERS.approver,
      user_name: 'approver',
      command: '/clickhouse',
      text,
      api_app_id: 'A0APP',
      response_url: h.slack.responseUrl(responseUrlId),
      trigger_id: `${Date.now()}.${randomUUID()}`,
    }).toString();

  const clickBody = () =>
    new URLSearchParams({
      payload: JSON.stringify({
        type: 'block_actions',
        user: { id: USERS.approver, username: 'approver', team_id: 'T0TEAM' },
        api_app_id: 'A0APP',
        token: 'legacy-verification-token',
        container: { type: 'message', message_ts: messageTs, channel_id: CHANNEL, is_ephemeral: false },
        trigger_id: `${Date.now()}.${randomUUID()}`,
        team: { id: 'T0TEAM', domain: 'test' },
        channel: { id: CHANNEL, name: 'ops' },
        message: { type: 'message', ts: messageTs, text: 'Change request' },
        response_url: h.slack.responseUrl(randomUUID()),
        actions: [
          {
            action_id: ACTION_APPROVE,
            block_id: 'change_actions',
            value: requestId,
            type: 'button',
            action_ts: String(Date.now() / 1000),
          },
        ],
      }),
    }).toString();

  const submissionBody = () =>
    new URLSearchParams({
      payload: JSON.stringify({
        type: 'view_submission',
        team: { id: 'T0TEAM', domain: 'test' },
        user: { id: USERS.approver, username: 'approver', team_id: 'T0TEAM' },
        api_app_id: 'A0APP',
        token: 'legacy-verification-token',
        trigger_id: `${Date.now()}.${randomUUID()}`,
        view: {
          id: 'V1',
          team_id: 'T0TEAM',
          type: 'modal',
          callback_id: EDIT_CALLBACK,
          hash: 'hash-1',
          private_metadata: JSON.stringify({
            channelId: CHANNEL,
            serviceId: DEMO_IDS.mlDev,
            shown: { name: 'ml-dev', mysql: false },
          }),
          state: { values: { [BLOCK.name]: { value: { type: 'plain_text_input', value: 'ml-forged' } } } },
        },
      }),
    }).toString();

  const KINDS = [
    { kind: 'slash command (a change request)', body: () => commandBody('rename ml-dev ml-forged') },
    { kind: 'slash command (list)', body: () => commandBody('list') },
    { kind: 'Approve click on a pending request', body: clickBody },
    { kind: 'edit modal submission', body: submissionBody },
  ];

  /** Sends every attack on every kind, and checks that each got 401 and that nothing happened. */
  it.each(KINDS)('refuses every forged, replayed or altered $kind with 401, and nothing happens', async ({ body }) => {
    // The genuine request made before redraws Home tabs in the background: let that finish first.
    await h.bot.homes.idle();
    const slackCalls = h.slack.calls.length;
    const apiCalls = h.simulator.requests.length;
    const statuses: string[] = [];
    for (const attack of ATTACKS) {
      const { body: sent, headers } = attack.build(body());
      const ack = await h.raw(sent, headers);
      statuses.push(`${attack.name}: ${ack.status}${ack.body ? ` ${ack.body.slice(0, 80)}` : ''}`);
    }
    expect(statuses).toStrictEqual(ATTACKS.map((attack) => `${attack.name}: 401`));
    // Anything a listener did would reach Slack or the API within milliseconds; give it plenty.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.slack.calls.slice(slackCalls).map((c) => c.method)).toStrictEqual([]);
    expect(h.simulator.requests.slice(apiCalls).map((r) => `${r.method} ${r.path}`)).toStrictEqual([]);
    expect((await h.bot.changeStore.get(requestId))?.status).toBe('pending');
    expect((await h.bot.changeStore.listPending(CHANNEL, Date.now())).map((r) => r.id)).toStrictEqual([requestId]);
  });

  it('ignores a payload smuggled into an unsigned ssl_check request', async () => {
    await h.bot.homes.idle();
    const slackCalls = h.slack.calls.length;
    const apiCalls = h.simulator.requests.length;
    const ack = await h.raw(`ssl_check=1&${clickBody()}`, { 'content-type': FORM });
    // Slack's own ssl_check is a few bytes: an unsigned body this long is refused unread.
    expect(ack.status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.slack.calls.slice(slackCalls)).toStrictEqual([]);
    expect(h.simulator.requests.slice(apiCalls)).toStrictEqual([]);
    expect((await h.bot.changeStore.get(requestId))?.status).toBe('pending');
  });

  it('leaves nothing of the attacks in the audit trail, and the genuine click still works afterwards', async () => {
    expect((await h.bot.changeStore.readAudit({ limit: 50 })).map((e) => e.action)).toStrictEqual(['requested']);
    const body = clickBody();
    const ack = await h.raw(body, signed(body));
    expect(ack.status).toBe(200);
    await h.slack.waitFor(
      'chat.update',
      (args) => textOf(args.blocks).includes(requestId) && textOf(args.blocks).includes('Applied'),
    );
    expect(h.simulator.requests.filter((r) => r.method === 'PATCH')).toHaveLength(1);
    expect(h.simulator.service(DEMO_IDS.sandboxDev)?.name).toBe('sandbox-renamed');
    expect(h.simulator.service(DEMO_IDS.mlDev)?.name).toBe('ml-dev');
  });
});
