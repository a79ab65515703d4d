/**
 * The real bot (same wiring as production) over HTTP with signed requests, a few hundred seeded
 * random slash commands, against an organization whose data is itself hostile (service names,
 * tags, IP descriptions and endpoint ids carrying <!channel>, <@U…>, <http://x|y>...). No approval
 * is ever clicked, so not a single update may reach the API; every command must be acknowledged
 * and answered; and nothing the bot posts or updates in the channel may ping or link anything.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoServices, demoServiceId } from '../../src/simulator/seed.js';
import type { ServiceRecordLike } from '../../src/simulator/state.js';
import { startHarness, USERS, type Ack, type Harness } from '../e2e/harness.js';
import type { SlackCall } from '../e2e/fake-slack.js';
import { deleteKeysWithPrefix } from '../support/redis.js';
import { hostileString, INJECTIONS, leaks, mrkdwnOf, prng, shown, WORDS, type Rng } from './hostile.js';

const SEED = 0xe2e_f022;
const COMMANDS = 300;
const CONCURRENCY = 8;

/** Services whose data (as the API returns it) is built to ping, link and break formatting. */
function hostileServices(): ServiceRecordLike[] {
  const base = demoServices()[0] as ServiceRecordLike;
  const names = [
    '<!channel> outage',
    '<!here>',
    '<@U0ATTACKER> db',
    '<http://evil.example|orders-prod>',
    '*bold* `code` _x_',
    '&lt;!everyone&gt;',
    'ops @channel 🚀',
    'שלום\u202Eprod',
  ];
  return names.map((name, i) => ({
    ...structuredClone(base),
    id: demoServiceId(0xe00 + i),
    name,
    state: i % 2 === 0 ? '<!here>' : 'running',
    clickhouseVersion: '<http://x|y>',
    ipAccessList: [
      { source: '10.0.0.0/8', description: '<!channel> office' },
      { source: '0.0.0.0/0', description: '<mailto:a@evil.example|mail> `x` *y*' },
    ],
    privateEndpointIds: ['<@U0ATTACKER>'],
    availablePrivateEndpointIds: ['<@U0ATTACKER>', 'vpce-<!here>'],
    hasTransparentDataEncryption: true,
    transparentDataEncryptionKeyId: '<#C123|general>',
    tags: [
      { key: 'env', value: 'prod' },
      { key: '<!channel>', value: '<http://x|y>' },
    ],
  }));
}

const SERVICES = [...demoServices(), ...hostileServices()];

/** How Slack delivers what was typed: &, <, > escaped; typed mentions and links as control sequences. */
function slackEscaped(typed: string): string {
  return typed.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function serviceWord(rng: Rng): string {
  const service = rng.pick(SERVICES);
  const name = rng.chance(0.3) ? service.id : service.name;
  return /\s/.test(name) || rng.chance(0.2) ? `"${name}"` : name;
}

function randomCommand(rng: Rng): string {
  const roll = rng.next();
  const arg = () =>
    rng.chance(0.6) ? rng.pick(WORDS) : rng.chance(0.5) ? hostileString(rng, 200) : rng.pick(INJECTIONS);
  let typed: string;
  if (roll < 0.1) typed = hostileString(rng, 3_000);
  else if (roll < 0.25)
    typed = `${rng.pick(['list', 'summary'])} ${Array.from({ length: rng.int(3) }, () => rng.pick(['tag:env=prod', 'tag:team', 'tag:<!channel>', arg()])).join(' ')}`;
  else if (roll < 0.4) typed = `${rng.pick(['show', 'history', 'edit'])} ${serviceWord(rng)}`;
  else if (roll < 0.5)
    typed = rng.pick([
      'pending',
      'history',
      'help',
      'schedule list',
      `schedule remove ${arg()}`,
      'schedule add "0 9 * * 1-5" tag:env=prod',
      `schedule add ${arg()}`,
    ]);
  else if (roll < 0.6) typed = `rename ${serviceWord(rng)} ${rng.pick(['new-name', 'a b c', arg()])}`;
  else if (roll < 0.72)
    typed = `ip ${rng.pick(['add', 'remove'])} ${serviceWord(rng)} ${rng.pick(['203.0.113.99', '0.0.0.0/0', '10.0.0.0/8', arg()])} ${rng.chance(0.6) ? arg() : ''}`;
  else if (roll < 0.8) typed = `endpoint ${serviceWord(rng)} mysql ${rng.pick(['on', 'off', arg()])}`;
  else if (roll < 0.86) typed = `release-channel ${serviceWord(rng)} ${rng.pick(['slow', 'fast', 'default', arg()])}`;
  else if (roll < 0.93)
    typed = `private-endpoint ${rng.pick(['attach', 'detach', arg()])} ${serviceWord(rng)} ${rng.pick(['<@U0ATTACKER>', 'vpce-0a1b2c3d4e5f67890', arg()])}`;
  else typed = `rotate-key ${serviceWord(rng)} ${arg()}`;
  let text = slackEscaped(typed);
  // Slack turns typed mentions and links into control sequences.
  if (rng.chance(0.3))
    text = `${text} ${rng.pick(['<!channel>', '<!here>', '<@U123>', '<http://evil.example|click>', '<mailto:a@b.c|mail>', '<#C123|general>'])}`;
  return text;
}

const PUBLIC = new Set(['chat.postMessage', 'chat.update', 'chat.postEphemeral']);

/** Everything a call shows in mrkdwn: its blocks (and a view's) and the notification text. */
function shownTexts(call: SlackCall): string[] {
  const { args } = call;
  const blocks = Array.isArray(args.blocks) ? args.blocks : [];
  const view = args.view as { blocks?: unknown[] } | undefined;
  const texts = [...mrkdwnOf(blocks), ...mrkdwnOf(view?.blocks ?? [])];
  if (typeof args.text === 'string') texts.push(args.text);
  return texts;
}

describe('a few hundred random commands over HTTP against hostile data', () => {
  let h: Harness;
  const acks: Array<{ text: string; ack: Ack }> = [];

  beforeAll(async () => {
    h = await startHarness({ services: SERVICES });
    const rng = prng(SEED);
    const texts = Array.from({ length: COMMANDS }, () => randomCommand(rng));
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < texts.length) {
          const text = texts[next++] as string;
          acks.push({ text, ack: await h.command(text, USERS.requester) });
        }
      }),
    );
  }, 60_000);

  afterAll(async () => {
    await h?.stop();
    if (h) await deleteKeysWithPrefix(h.keyPrefix);
  });

  it('acknowledges every command with 200 and answers every one', async () => {
    expect(acks).toHaveLength(COMMANDS);
    expect(
      acks.filter(({ ack }) => ack.status !== 200).map(({ text, ack }) => `${ack.status} for ${shown(text)}`),
    ).toStrictEqual([]);
    const unanswered: string[] = [];
    await Promise.all(
      acks.map(async ({ text, ack }) => {
        const answered = Promise.race([
          h.slack.waitFor('response_url', (args) => args.responseUrlId === ack.responseUrlId, { timeoutMs: 15_000 }),
          h.slack.waitFor('views.open', (args) => args.trigger_id === ack.triggerId, { timeoutMs: 15_000 }),
        ]);
        await answered.catch(() => unanswered.push(shown(text)));
      }),
    );
    expect(unanswered).toStrictEqual([]);
  }, 30_000);

  it('sends no update to the API: nothing was approved', async () => {
    // Let anything still in flight (summaries, modal updates) settle first.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const methods = new Set(h.simulator.requests.map((r) => r.method));
    expect(h.simulator.requests.filter((r) => r.method !== 'GET')).toStrictEqual([]);
    expect(methods).toStrictEqual(new Set(['GET']));
    // The fuzz did reach the approval flow: requests were posted and wait for approval.
    expect(
      h.slack.callsOf('chat.postMessage', (args) => JSON.stringify(args.blocks ?? '').includes('change_approve'))
        .length,
    ).toBeGreaterThan(5);
    expect((await h.bot.changeStore.listPending('C0CHANNEL', Date.now())).length).toBeGreaterThan(5);
  });

  it('never posts or updates a channel message that pings or links what the data or the command smuggled in', () => {
    const publicCalls = h.slack.calls.filter((c) => PUBLIC.has(c.method));
    expect(publicCalls.length).toBeGreaterThan(10);
    const found = publicCalls.flatMap((call) =>
      shownTexts(call).flatMap((text) => leaks(text, [USERS.requester]).map((leak) => `${call.method}: ${leak}`)),
    );
    expect(found).toStrictEqual([]);
  });

  it('never answers the requester (response_url, modals) with blocks that ping or link', () => {
    const answers = h.slack.calls.filter((c) => c.method === 'response_url' || c.method.startsWith('views.'));
    const found = answers.flatMap((call) => {
      const blocks = Array.isArray(call.args.blocks) ? call.args.blocks : [];
      const view = call.args.view as { blocks?: unknown[] } | undefined;
      return [...mrkdwnOf(blocks), ...mrkdwnOf(view?.blocks ?? [])].flatMap((text) =>
        leaks(text, [USERS.requester]).map((leak) => `${call.method}: ${leak}`),
      );
    });
    expect(found).toStrictEqual([]);
  });

  it('keeps the bot healthy and serving after the fuzz', async () => {
    const ack = await h.command('list');
    const reply = await h.slack.waitFor('response_url', (args) => args.responseUrlId === ack.responseUrlId);
    expect(JSON.stringify(reply.args)).toContain('ClickHouse Cloud services');
    expect(h.logs.filter((line) => / ERROR /.test(line) && !/summary|Slack refused/.test(line))).toStrictEqual([]);
  });
});
