import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { EDIT_CALLBACK } from '../../src/core/render/modal.js';
import { BLOCK } from '../support/blocks.js';
import { DEMO_IDS, demoServices, syntheticServices } from '../../src/simulator/seed.js';
import {
  answerText,
  CHANNEL,
  signatureHeaders,
  textOf,
  useHarnesses,
  USERS,
  type Ack,
  type Harness,
} from './harness.js';

const harness = useHarnesses();

const answer = (h: Harness, ack: Ack) => h.slack.waitFor('response_url', (a) => a.responseUrlId === ack.responseUrlId);

describe('slash commands', () => {
  it('answers help and an unknown word with the command list, an empty command with where to start', async () => {
    const h = await harness();
    const empty = await answerText(h, await h.command(''));
    expect(empty).toContain('/clickhouse list [tag:KEY[=VALUE] ...]');
    expect(empty).not.toContain('/clickhouse ip add');
    for (const text of ['help', 'frobnicate']) {
      const body = await answerText(h, await h.command(text));
      expect(body).toContain('/clickhouse list [tag:KEY[=VALUE] ...]');
      expect(body).toContain('/clickhouse ip add');
    }
    expect(await answerText(h, await h.command('frobnicate'))).toContain('`frobnicate` is not a command');
  });

  it('answers a typo with the command probably meant and its one help line, not the whole help', async () => {
    const h = await harness();
    const body = await answerText(h, await h.command('lst tag:env=prod'));
    expect(body).toContain('Did you mean `list`?');
    expect(body).toContain('/clickhouse list [tag:KEY[=VALUE] ...]');
    expect(body).not.toContain('/clickhouse ip add');
  });

  it('lists services, filtered by tags, privately to the person who asked', async () => {
    const h = await harness();
    const all = await answer(h, await h.command('list'));
    expect(all.args.response_type).toBe('ephemeral');
    expect(textOf(all.args)).toContain('orders-prod');
    expect(textOf(all.args)).toContain('open to the internet');
    const prod = await answerText(h, await h.command('list tag:env=prod tag:team=platform'));
    expect(prod).toContain('events-prod');
    expect(prod).not.toContain('orders-prod');
    // One read of the whole organization serves both answers; the filters apply locally.
    expect(h.simulator.requests.map((r) => r.query.getAll('filter'))).toEqual([[]]);
  });

  it('refuses a malformed tag filter before asking the API (which would ignore it)', async () => {
    const h = await harness();
    const text = await answerText(h, await h.command('list env=prod'));
    expect(text).toContain('tag:KEY');
    expect(h.simulator.requests).toHaveLength(0);
  });

  it('shows one service in full, by name with curly quotes', async () => {
    const h = await harness();
    const text = await answerText(h, await h.command('show \u201Canalytics staging\u201D'));
    expect(text).toContain(DEMO_IDS.analyticsStaging);
    expect(text).toMatch(/IP access list/);
    expect(text).toMatch(/Private endpoints/);
    expect(text).toMatch(/Encryption/);
  });

  it('answers an unknown or ambiguous service with candidates', async () => {
    const h = await harness();
    expect(await answerText(h, await h.command('show orders'))).toMatch(
      /No service is called `orders`[\s\S]*orders-prod/,
    );
    const twins = demoServices();
    twins.push({ ...twins[0]!, id: '5e000000-0000-4000-8000-0000000000aa', name: 'Orders-Prod' });
    const h2 = await harness({ services: twins });
    const text = await answerText(h2, await h2.command('show ORDERS-PROD'));
    expect(text).toContain('matches several services');
  });

  it.each([
    ['ip add orders-prod 10.0.0.300/8', 'not an IP address'],
    [`rename orders-prod ${'x'.repeat(51)}`, '50'],
    ['rename orders-prod orders 🚀', 'letters'],
    ['endpoint orders-prod postgres on', 'mysql'],
    ['rename no-such-service new', 'No service is called'],
    ['release-channel ml-dev fastest', 'slow'],
    ['release-channel orders-staging fast', 'Development services stay on the default release channel'],
    ['endpoint billing-prod mysql on', 'changes nothing'],
  ])('refuses `%s` with a sentence and no request', async (text, expected) => {
    const h = await harness();
    const reply = await answerText(h, await h.command(text));
    expect(reply).toContain(expected);
    expect(h.slack.callsOf('chat.postMessage')).toHaveLength(0);
    expect(h.simulator.requests.filter((r) => r.method === 'PATCH')).toHaveLength(0);
  });

  it('acknowledges within 3 s even when the Cloud API takes 3.5 s, then answers', async () => {
    const h = await harness();
    h.simulator.faults.latencyMs = 3_500;
    const ack = await h.command('list');
    expect(ack.status).toBe(200);
    expect(ack.elapsedMs).toBeLessThan(3_000);
    const reply = await h.slack.waitFor('response_url', (a) => a.responseUrlId === ack.responseUrlId, {
      timeoutMs: 15_000,
    });
    expect(textOf(reply.args)).toContain('orders-prod');
  });

  it('tells the person what failed, with status and request id, when the API errors', async () => {
    const h = await harness();
    h.simulator.faults.failNext(1, 401);
    const text = await answerText(h, await h.command('list'));
    expect(text).toContain("refused the bot's API key");
    expect(text).toMatch(/status 401, request id `[0-9a-f-]{36}`/);
  });

  it('renders 500 services in one message within Slack limits', async () => {
    const h = await harness({ services: syntheticServices(500) });
    const reply = await answer(h, await h.command('list'));
    const blocks = reply.args.blocks as Array<{ type: string; text?: { text: string } }>;
    expect(blocks.length).toBeLessThanOrEqual(50);
    for (const block of blocks) expect(block.text?.text.length ?? 0).toBeLessThanOrEqual(3000);
    expect(textOf(blocks)).toContain('500 services');
  });
});

describe('edit modal', () => {
  it('opens a loading modal within the trigger lifetime even when the API is slow, then fills it', async () => {
    const h = await harness();
    h.simulator.faults.latencyMs = 3_500;
    const ack = await h.command('edit orders-prod');
    expect(ack.elapsedMs).toBeLessThan(3_000);
    const opened = await h.slack.waitFor('views.open');
    expect(opened.args.trigger_id).toBe(ack.triggerId);
    const filled = await h.slack.waitFor('views.update', undefined, { timeoutMs: 15_000 });
    const view = filled.args.view as { callback_id: string; private_metadata: string };
    expect(view.callback_id).toBe(EDIT_CALLBACK);
    expect(JSON.parse(view.private_metadata)).toMatchObject({
      channelId: CHANNEL,
      serviceId: DEMO_IDS.ordersProd,
      shown: { name: 'orders-prod', mysqlEndpoint: false },
    });
    expect(textOf(view)).toContain('Office network');
  });

  async function openedView(h: Harness, service: string) {
    await h.command(`edit ${service}`);
    const filled = await h.slack.waitFor('views.update');
    return filled.args.view as Record<string, unknown>;
  }

  it('shows invalid input inline and creates nothing', async () => {
    const h = await harness();
    const view = await openedView(h, 'orders-prod');
    const ack = await h.submitView(
      view,
      { [BLOCK.ipAdd]: { value: { type: 'plain_text_input', value: '10.0.0.0/33 bad mask' } } },
      USERS.requester,
    );
    expect(ack.status).toBe(200);
    const body = JSON.parse(ack.body) as { response_action: string; errors: Record<string, string> };
    expect(body.response_action).toBe('errors');
    expect(body.errors[BLOCK.ipAdd]).toContain('10.0.0.0/33');
    expect(h.slack.callsOf('chat.postMessage')).toHaveLength(0);
  });

  it('turns a valid submission into a change request in the channel', async () => {
    const h = await harness();
    const view = await openedView(h, 'metrics-prod');
    const ack = await h.submitView(
      view,
      {
        [BLOCK.name]: { value: { type: 'plain_text_input', value: 'metrics primary' } },
        [BLOCK.attach]: {
          value: { type: 'multi_static_select', selected_options: [{ value: 'vpce-0a1b2c3d4e5f60002' }] },
        },
      },
      USERS.requester,
    );
    expect(ack.body).toBe('');
    const posted = await h.slack.waitFor('chat.postMessage');
    expect(posted.args.channel).toBe(CHANNEL);
    expect(textOf(posted.args.blocks)).toContain('metrics primary');
    expect(textOf(posted.args.blocks)).toContain('vpce-0a1b2c3d4e5f60002');
  });

  it('edits tags through the modal, before -> after per tag, and applies them as tags {remove, add} on approval', async () => {
    const h = await harness();
    const view = await openedView(h, 'legacy-reporting');
    const tagsBlock = (view.blocks as Array<Record<string, unknown>>).find((b) => b.block_id === BLOCK.tags);
    expect(JSON.stringify(tagsBlock)).toContain('"initial_value":"team=analytics migration=phase.2 keep"');
    const ack = await h.submitView(
      view,
      { [BLOCK.tags]: { value: { type: 'plain_text_input', value: 'team=platform keep owner=ana' } } },
      USERS.requester,
    );
    expect(ack.body).toBe('');
    const posted = await h.slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes('Change request'));
    const text = textOf(posted.args.blocks);
    expect(text).toContain('*Tag*: − `migration=phase.2`');
    expect(text).toContain('*Tag*: `team=analytics` → `team=platform`');
    expect(text).toContain('*Tag*: + `owner=ana`');
    const id = /CR-[0-9A-F]{10}/.exec(text)?.[0] ?? '';
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'));
    const patched = h.simulator.requests.filter((r) => r.method === 'PATCH');
    expect(patched.map((r) => r.body)).toStrictEqual([
      {
        tags: {
          remove: [
            { key: 'migration', value: 'phase.2' },
            { key: 'team', value: 'analytics' },
          ],
          add: [
            { key: 'team', value: 'platform' },
            { key: 'owner', value: 'ana' },
          ],
        },
      },
    ]);
    expect(h.simulator.service(DEMO_IDS.legacyReporting)?.tags).toStrictEqual([
      { key: 'keep' },
      { key: 'team', value: 'platform' },
      { key: 'owner', value: 'ana' },
    ]);
  });

  it('refuses a tag outside the official alphabet inline under the tags field', async () => {
    const h = await harness();
    const view = await openedView(h, 'orders-prod');
    const ack = await h.submitView(
      view,
      { [BLOCK.tags]: { value: { type: 'plain_text_input', value: 'env=prod team=data owner=a/b' } } },
      USERS.requester,
    );
    const body = JSON.parse(ack.body) as { response_action: string; errors: Record<string, string> };
    expect(body.errors[BLOCK.tags]).toContain('"owner=a/b" is not a tag');
    expect(h.slack.callsOf('chat.postMessage')).toHaveLength(0);
  });
});

describe('the HTTP surface', () => {
  it('rejects a bad signature, a stale timestamp and an altered body with 401, doing nothing', async () => {
    const h = await harness();
    const body = new URLSearchParams({
      command: '/clickhouse',
      text: 'list',
      user_id: USERS.requester,
      channel_id: CHANNEL,
      response_url: h.slack.responseUrl('x'),
      trigger_id: '1',
    }).toString();
    const now = Math.floor(Date.now() / 1000).toString();
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const forged = await h.raw(body, { ...form, ...signatureHeaders(body, now, 'not-the-secret') });
    const replayed = await h.raw(body, { ...form, ...signatureHeaders(body, String(Number(now) - 600)) });
    const altered = await h.raw(`${body}&x=1`, { ...form, ...signatureHeaders(body, now) });
    expect([forged.status, replayed.status, altered.status]).toEqual([401, 401, 401]);
    expect(h.slack.callsOf('response_url')).toHaveLength(0);
    expect(h.simulator.requests).toHaveLength(0);
  });

  it('answers /healthz with 200 while the store answers', async () => {
    const h = await harness();
    const response = await request(`http://127.0.0.1:${h.bot.port}/healthz`);
    expect(response.statusCode).toBe(200);
    expect(await response.body.json()).toMatchObject({ ok: true });
  });

  it('never writes the key secret or tokens to the log during a whole flow', async () => {
    const h = await harness();
    await answer(h, await h.command('list'));
    await h.command('rename ml-dev ml');
    await h.slack.waitFor('chat.postMessage');
    const log = h.logs.join('\n');
    expect(log.length).toBeGreaterThan(0);
    expect(log).not.toContain('test-key-secret-must-never-be-logged');
    expect(log).not.toContain('xoxb-test-token-never-logged');
    expect(log).not.toContain(Buffer.from('testKeyId:test-key-secret-must-never-be-logged').toString('base64'));
  });
});
