/**
 * A break-glass change is never left unreviewed by a crash (issue 35, item 3), nor reviewed twice:
 * the bot is a real process killed at a point, and two replicas start after it on the same Redis.
 * - Killed while applying it: the replica that settles it files its review, once.
 * - Killed after recording it applied, before filing its review: filed once when bots start again.
 */
import { describe, expect, it } from 'vitest';
import { reviewIdOf } from '../../src/core/policy/breakglass.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { DEFAULT_KEY_PREFIX } from '../../src/store/index.js';
import type { SlackCall } from '../e2e/fake-slack.js';
import { CHANNEL, slackSender, startHarness, textOf } from '../e2e/harness.js';
import { BREAKGLASS_PROD, usePolicyFiles } from '../e2e/policy-files.js';
import { startChildBot, useProcessBackends, type ChildBot } from './processes.js';

const backends = useProcessBackends();
const policyFile = usePolicyFiles();
/** One-second leases: a killed bot's request is taken over within about a second. */
const ENV = { APPROVAL_LEASE_SECONDS: '1', CLICKHOUSE_TIMEOUT_SECONDS: '2', POLICY_FILE: policyFile(BREAKGLASS_PROD) };
const BREAK_GLASS = 'breakglass ip add orders-prod 203.0.113.9 laptop for 1h because "INC-7 dashboards down"';

/** The bot as a process that breaks glass; resolves with the request's id once it is posted. */
async function breakGlassInChild(): Promise<{ bot: ChildBot; id: string }> {
  const { simulator, slack, redis, children } = backends;
  const bot = await startChildBot({ simulator, slack, redisUrl: redis.url, env: ENV });
  children.push(bot);
  const after = slack.calls.length;
  expect((await slackSender(bot.url, slack).command(BREAK_GLASS)).status).toBe(200);
  const posted = await slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes('broke glass'), { after });
  const id = /CR-[0-9A-F]{10}/.exec(textOf(posted.args.blocks))?.[0];
  if (!id) throw new Error(`no request id in ${textOf(posted.args.blocks)}`);
  return { bot, id };
}

async function kill(bot: ChildBot): Promise<void> {
  bot.signal('SIGKILL');
  expect(await bot.exited).toEqual({ code: null, signal: 'SIGKILL' });
}

/** Two replicas start on the same Redis at once, as after a crash. */
async function twoReplicas(): Promise<void> {
  const { simulator, slack, redis, replicas } = backends;
  const shared = { simulator, slack, redisUrl: redis.url, keyPrefix: DEFAULT_KEY_PREFIX, env: ENV };
  replicas.push(...(await Promise.all([startHarness(shared), startHarness(shared)])));
}

/** The review's posts in the channel (its reviewers are told by DM too). */
const reviewPosts = (reviewId: string): SlackCall[] =>
  backends.slack.callsOf('chat.postMessage', (a) => a.channel === CHANNEL && textOf(a.blocks).includes(reviewId));

/** The review is posted in the change's thread, once, and waits for an approver. */
async function expectReviewedOnce(id: string): Promise<void> {
  const { slack, store, replicas } = backends;
  const reviewId = reviewIdOf(id);
  const posted = await slack.waitFor(
    'chat.postMessage',
    (a) => a.channel === CHANNEL && textOf(a.blocks).includes(reviewId),
    { timeoutMs: 15_000 },
  );
  expect(JSON.stringify(posted.args.blocks)).toContain('Mark reviewed');
  expect(posted.args.thread_ts).toBe((await store.get(id))?.messageTs);
  expect((await store.get(reviewId))?.status).toBe('pending');
  // Both replicas have finished their start (the takeover and the look for owed reviews).
  for (const replica of replicas) await replica.bot.changeRequests.drain();
  expect(reviewPosts(reviewId)).toHaveLength(1);
}

const patches = () => backends.simulator.requests.filter((r) => r.method === 'PATCH');

describe('the review of a break-glass change whose bot was killed', () => {
  it('is filed once by the replica that settles the change, when the bot died while applying it', async () => {
    const { bot, id } = await breakGlassInChild();
    // The update took effect but never answers: the bot is inside the API call when it dies.
    backends.simulator.faults.hangNext(1, { on: 'PATCH', afterApply: true });
    await expect.poll(() => patches().length).toBe(1);
    await kill(bot);
    expect((await backends.store.get(id))?.status).toBe('applying');

    await twoReplicas();
    await expect.poll(async () => (await backends.store.get(id))?.status, { timeout: 15_000 }).toBe('applied');
    await expectReviewedOnce(id);
    expect(patches()).toHaveLength(1);
  }, 40_000);

  it('is filed once when bots start again, when the bot died after recording it applied', async () => {
    const { simulator, slack, store } = backends;
    // The message update right after the outcome is recorded waits a minute (Slack's Retry-After):
    // the bot is killed there, between recording the change applied and filing its review.
    simulator.on('request', (r) => {
      if (r.method === 'PATCH') slack.rateLimits.push({ method: 'chat.update', retryAfterSeconds: 60 });
    });
    const { bot, id } = await breakGlassInChild();
    await new Promise((resolve) => slack.once('rateLimited', resolve));
    expect((await store.get(id))?.status).toBe('applied');
    await kill(bot);
    const opened = simulator.service(DEMO_IDS.ordersProd)?.ipAccessList ?? [];
    expect(opened.some((e) => e.source.startsWith('203.0.113.9'))).toBe(true);
    expect(await store.get(reviewIdOf(id))).toBeUndefined();

    await twoReplicas();
    await expectReviewedOnce(id);
  }, 40_000);
});
