/**
 * The bot as a real process (`node src/main.js` of the transpiled sources, configured only by
 * environment) against the simulator, the fake Slack and a redis-server of the test's own.
 * - SIGKILL after it claimed a request and sent the update, before it recorded the outcome: the
 *   next bot to start reconciles the request against the service as it now is (applied if the
 *   update took effect, failed if not), updates the channel message, and leaves nothing in
 *   "applying".
 * - SIGTERM with an approval in flight: the approval finishes, new work is refused with the
 *   "restarting" sentence, and the process exits 0 within main.ts's 10 s deadline.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { CloudSimulator, type RecordedRequest } from '../../src/simulator/server.js';
import { DEMO_IDS, DEMO_ORG_ID, demoServices } from '../../src/simulator/seed.js';
import { DRAINING_TEXT } from '../../src/slack/listeners/draining.js';
import { DEFAULT_KEY_PREFIX, RedisChangeStore } from '../../src/store/index.js';
import { FakeSlack } from '../e2e/fake-slack.js';
import {
  KEY_ID,
  KEY_SECRET,
  slackSender,
  startHarness,
  textOf,
  USERS,
  type Ack,
  type Harness,
  type SlackSender,
} from '../e2e/harness.js';
import { startChildBot, startRedisServer, type ChildBot, type RedisServer } from './processes.js';

/** main.ts's EXIT_DEADLINE_MS. */
const EXIT_DEADLINE_MS = 10_000;
const UPDATE_LATENCY_MS = 3_000;

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis.stop();
});

let simulator: CloudSimulator;
let slack: FakeSlack;
let store: RedisChangeStore;
const children: ChildBot[] = [];
const harnesses: Harness[] = [];
beforeEach(async () => {
  await redis.client().flushall();
  simulator = await CloudSimulator.start({
    keyId: KEY_ID,
    keySecret: KEY_SECRET,
    orgId: DEMO_ORG_ID,
    services: demoServices(),
  });
  slack = await FakeSlack.start();
  // The child uses the default key prefix: REDIS_URL is all the environment says about Redis.
  store = new RedisChangeStore(redis.url, { keyPrefix: DEFAULT_KEY_PREFIX });
});
afterEach(async () => {
  for (const child of children.splice(0)) await child.kill();
  while (harnesses.length > 0) await harnesses.pop()?.stop();
  await store.close();
  await simulator.close();
  await slack.close();
});

/**
 * Short leases, so that a killed bot's request is taken over within about a second, and a short
 * API timeout, which bounds how long the settler waits for an update the dead bot may have sent.
 */
const SHORT_LEASE = { APPROVAL_LEASE_SECONDS: '1', CLICKHOUSE_TIMEOUT_SECONDS: '2' };

async function child(env: Record<string, string> = SHORT_LEASE): Promise<{ bot: ChildBot; send: SlackSender }> {
  const bot = await startChildBot({ simulator, slack, redisUrl: redis.url, env });
  children.push(bot);
  return { bot, send: slackSender(bot.url, slack) };
}

const answer = (ack: Ack, timeoutMs = 10_000) =>
  slack
    .waitFor('response_url', (a) => a.responseUrlId === ack.responseUrlId, { timeoutMs })
    .then((c) => textOf(c.args));

async function requestRename(send: SlackSender, service: string, name: string): Promise<string> {
  const after = slack.calls.length;
  const ack = await send.command(`rename ${service} "${name}"`);
  expect(ack.status).toBe(200);
  const posted = await slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes('Change request'), { after });
  const id = /CR-[0-9A-F]{10}/.exec(textOf(posted.args.blocks))?.[0];
  if (!id) throw new Error(`no request id in ${textOf(posted.args.blocks)}`);
  expect(await answer(ack)).toContain(id);
  return id;
}

/** Resolves with the next PATCH the simulator receives. */
function nextPatch(): Promise<RecordedRequest> {
  return new Promise((resolve) => {
    const onRequest = (r: RecordedRequest) => {
      if (r.method !== 'PATCH') return;
      simulator.off('request', onRequest);
      resolve(r);
    };
    simulator.on('request', onRequest);
  });
}

const outcomeUpdate = (id: string, word: string, after: number, timeoutMs = 10_000) =>
  slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes(word), {
    after,
    timeoutMs,
  });

describe('a bot killed (SIGKILL) between claiming a request and recording its outcome', () => {
  it.each([
    {
      when: 'the update had taken effect',
      afterApply: true,
      status: 'applied',
      word: 'Applied',
      says: 'which shows it',
    },
    {
      when: 'the update had not taken effect',
      afterApply: false,
      status: 'failed',
      word: 'Not applied',
      says: 'which does not show it',
    },
  ] as const)(
    'is reconciled by the next bot to start when $when',
    async ({ afterApply, status, word, says }) => {
      const { bot, send } = await child();
      const id = await requestRename(send, 'orders-staging', 'orders-crashed');
      // The update never answers: the bot is inside updateService when it dies.
      simulator.faults.hangNext(1, { on: 'PATCH', afterApply });
      const patch = nextPatch();
      const click = await send.click(ACTION_APPROVE, id, USERS.approver);
      expect(click.status).toBe(200);
      expect((await patch).body).toEqual({ name: 'orders-crashed' });
      bot.signal('SIGKILL');
      expect(await bot.exited).toEqual({ code: null, signal: 'SIGKILL' });
      expect((await store.get(id))?.status).toBe('applying');
      expect(simulator.service(DEMO_IDS.ordersStaging)?.name).toBe(afterApply ? 'orders-crashed' : 'orders-staging');

      // A replica (or the restarted bot) starts on the same Redis and settles what the dead one left.
      const after = slack.calls.length;
      const next = await startHarness({
        simulator,
        slack,
        redisUrl: redis.url,
        keyPrefix: DEFAULT_KEY_PREFIX,
        env: SHORT_LEASE,
      });
      harnesses.push(next);
      const update = await outcomeUpdate(id, word, after);
      const stored = await store.get(id);
      expect(stored?.status).toBe(status);
      expect(stored?.outcome?.message).toContain('The bot replica applying this change stopped after sending it');
      expect(stored?.outcome?.message).toContain(says);
      expect(textOf(update.args.blocks)).toContain(says);
      expect(await store.listApplying()).toHaveLength(0);
      // The dead bot's update was never replayed.
      expect(simulator.requests.filter((r) => r.method === 'PATCH')).toHaveLength(1);
      if (afterApply)
        await slack.waitFor('chat.postMessage', (a) => String(a.text).startsWith(`Applied change ${id} `), { after });

      // A late click is told the request is settled, and the new bot serves commands.
      expect(await answer(await next.click(ACTION_APPROVE, id, USERS.second))).toContain('already settled');
      expect(await answer(await next.command('list'))).toContain(afterApply ? 'orders-crashed' : 'orders-staging');
    },
    40_000,
  );
});

describe('a bot stopped with SIGTERM', () => {
  it('finishes the approval in flight, refuses new work, closes and exits 0 within 10 s', async () => {
    // The default API timeout: the update in flight takes 3 s to answer.
    const { bot, send } = await child({});
    const inFlight = await requestRename(send, 'events-staging', 'events-drained');
    const waiting = await requestRename(send, 'sandbox-dev', 'sandbox-not-now');
    // `list` answered by the acknowledging thread itself (ready answers): draining must stop that too.
    await expect.poll(async () => (await send.command('list')).body, { timeout: 10_000 }).not.toBe('');

    // The update takes 3 s to answer, so the approval is still running when SIGTERM arrives and
    // while the test sends new work.
    const patch = new Promise<void>((resolve) =>
      simulator.on('request', (r) => {
        if (r.method !== 'PATCH') return;
        simulator.faults.latencyMs = UPDATE_LATENCY_MS;
        resolve();
      }),
    );
    const after = slack.calls.length;
    const click = await send.click(ACTION_APPROVE, inFlight, USERS.approver);
    expect(click.status).toBe(200);
    await patch;
    const signalled = Date.now();
    bot.signal('SIGTERM');
    await bot.printed(/SIGTERM received: finishing approvals in flight, refusing new work/);

    // New work while draining (the update still has more than a second to go, so the receiver is
    // still up): a command and a click are both refused privately.
    const command = await send.command('list');
    expect(command.status).toBe(200);
    expect(await answer(command)).toContain(DRAINING_TEXT);
    const refusedClick = await send.click(ACTION_APPROVE, waiting, USERS.approver);
    expect(refusedClick.status).toBe(200);
    expect(await answer(refusedClick)).toContain(DRAINING_TEXT);

    const exit = await bot.exited;
    const took = Date.now() - signalled;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(took).toBeLessThan(EXIT_DEADLINE_MS);
    expect(took).toBeGreaterThanOrEqual(UPDATE_LATENCY_MS - 500); // it did wait for the update
    expect(bot.output.join('')).not.toContain('shutdown took too long');

    // The approval in flight finished and was recorded and shown; the refused one is untouched.
    expect((await store.get(inFlight))?.status).toBe('applied');
    expect(simulator.service(DEMO_IDS.eventsStaging)?.name).toBe('events-drained');
    await outcomeUpdate(inFlight, 'Applied', after, 1);
    expect((await store.get(waiting))?.status).toBe('pending');
    expect(simulator.requests.filter((r) => r.method === 'PATCH')).toHaveLength(1);
  }, 40_000);
});
