/**
 * Capacity and power under a hostile or careless colleague (issue 24 review): policies that must
 * not be sidestepped through a temporary change's revert, reverts that fall due while the service
 * is still moving, overlapping temporary changes, and the state operation's exactly-once path.
 * The real bot over signed HTTP, real Redis, the simulator; reverts are due on a movable clock.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { ACTION_EXTEND, ACTION_REVERT_NOW, ACTION_UNDO } from '../../src/core/render/temporary.js';
import { DEMO_IDS, DEMO_ORG_ID, demoServiceId, demoServices, syntheticServices } from '../../src/simulator/seed.js';
import { CloudSimulator } from '../../src/simulator/server.js';
import { FakeSlack } from './fake-slack.js';
import {
  answerText,
  CHANNEL,
  KEY_ID,
  KEY_SECRET,
  requestChange,
  textOf,
  useHarnesses,
  USERS,
  MINUTE,
  movableClock,
  patchesTo,
  appliedMessage,
  messageTsOf,
} from './harness.js';
import { usePolicyFiles } from './policy-files.js';

const harness = useHarnesses({ temporaryTickMs: 50, simulatorTransitionMs: 200 });
const policyFile = usePolicyFiles();

const STOP_NEEDS_TWO = [
  'rules:',
  '  - name: stopping needs two',
  '    match: { changes: [power], risks: [stop] }',
  '    approvals: 2',
  '',
].join('\n');

const HALVING_NEEDS_TWO = [
  'rules:',
  '  - name: halving needs two',
  '    match: { risks: [capacity-down] }',
  '    approvals: 2',
  '',
].join('\n');

describe('a policy on stops is not sidestepped', () => {
  it('start … for needs what its revert (a stop) needs, since the revert itself asks nobody', async () => {
    const h = await harness({ env: { POLICY_FILE: policyFile(STOP_NEEDS_TWO) } });
    const { id, posted } = await requestChange(h, 'start orders-staging for 1h');
    expect(textOf(posted.args.blocks)).toContain('stopping needs two');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await h.slack.waitFor('chat.update', (x) => textOf(x.blocks).includes(id) && textOf(x.blocks).includes('1 of 2'));
    expect(patchesTo(h, '/state')).toHaveLength(0);
  });

  it('a temporary scale up needs what its revert (down by half) needs', async () => {
    const h = await harness({ env: { POLICY_FILE: policyFile(HALVING_NEEDS_TWO) } });
    const { posted } = await requestChange(h, 'scale orders-prod replicas 6 for 1h');
    expect(textOf(posted.args.blocks)).toContain('halving needs two');
    // Without for, scaling up carries no such risk.
    const { posted: plain } = await requestChange(h, 'scale orders-prod replicas 6');
    expect(textOf(plain.args.blocks)).not.toContain('halving needs two');
  });

  it('Extend of a start … for is judged like the grant, stop risk included: two approvals', async () => {
    const h = await harness({ env: { POLICY_FILE: policyFile(STOP_NEEDS_TWO) } });
    const { id } = await requestChange(h, 'start orders-staging for 1h');
    const ts = await messageTsOf(h, id);
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await h.click(ACTION_APPROVE, id, USERS.second);
    await appliedMessage(h, id);
    expect(await answerText(h, await h.click(ACTION_EXTEND, id, USERS.requester))).toContain('posted in the thread');
    const extension = await h.slack.waitFor(
      'chat.postMessage',
      (x) => x.thread_ts === ts && textOf(x.blocks).includes(`Revert of ${id}`),
    );
    expect(textOf(extension.args.blocks)).toContain('stopping needs two');
  });

  it('Undo of a start is a stop, and needs the two approvals', async () => {
    const h = await harness({ env: { POLICY_FILE: policyFile(STOP_NEEDS_TWO) } });
    const { id } = await requestChange(h, 'start orders-staging');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    await expect.poll(() => h.simulator.service(DEMO_IDS.ordersStaging)?.state, { timeout: 5_000 }).toBe('running');
    const after = h.slack.calls.length;
    const answer = await answerText(h, await h.click(ACTION_UNDO, id, USERS.requester));
    expect(answer).toMatch(/CR-/);
    const undo = await h.slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes('Change request'), {
      after,
    });
    expect(textOf(undo.args.blocks)).toContain('stopping needs two');
  });
});

describe('a revert that falls due while the service is still moving', () => {
  it.each([
    {
      action: 'stop',
      service: 'events-staging',
      id: DEMO_IDS.eventsStaging,
      moving: 'stopping',
      settled: 'stopped',
      back: 'start',
    },
    {
      action: 'start',
      service: 'orders-staging',
      id: DEMO_IDS.ordersStaging,
      moving: 'starting',
      settled: 'running',
      back: 'stop',
    },
  ] as const)(
    '$action … for: a service still $moving is put back once it is $settled, not left so',
    async ({ action, service, id: serviceId, moving, settled, back }) => {
      const clock = movableClock();
      // Transitions take a minute here: the revert falls due while the service is still moving.
      const h = await harness({ clock: clock.now, simulatorTransitionMs: 60_000 });
      const { id } = await requestChange(h, `${action} ${service} for 1m`);
      const ts = await messageTsOf(h, id);
      await h.click(ACTION_APPROVE, id, USERS.approver);
      await appliedMessage(h, id);
      expect(h.simulator.service(serviceId)?.state).toBe(moving);
      clock.advance(MINUTE + 1_000);
      // Give the bot a few ticks at the revert while the service is still moving.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(patchesTo(h, '/state').map((r) => r.body)).toStrictEqual([{ command: action }]);
      // The transition completes; the revert, tried again later, puts it back.
      h.simulator.changeOutsideBot(serviceId, { state: settled });
      clock.advance(15 * MINUTE);
      await expect
        .poll(() => patchesTo(h, '/state').map((r) => r.body), { timeout: 10_000 })
        .toStrictEqual([{ command: action }, { command: back }]);
      await h.bot.changeRequests.drain();
      const nothing = (x: { thread_ts?: unknown; blocks?: unknown }) =>
        x.thread_ts === ts && textOf(x.blocks).includes('Nothing to revert');
      expect(h.slack.callsOf('chat.postMessage', nothing)).toHaveLength(0);
    },
  );
});

describe('temporary capacity on top of temporary capacity', () => {
  it('a second temporary scale of the same replicas is refused while the first is active: the service ends as it began', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now });
    const first = await requestChange(h, 'scale orders-prod replicas 6 for 1h');
    await h.click(ACTION_APPROVE, first.id, USERS.approver);
    await appliedMessage(h, first.id);
    const answer = await answerText(h, await h.command('scale orders-prod replicas 8 for 1h'));
    expect(answer).toContain(first.id);
    expect(answer).toMatch(/extend/i);
    // Memory is not what the first one holds: a temporary change of it is fine.
    const memory = await requestChange(h, 'scale orders-prod memory 16-64 for 1h');
    await h.click(ACTION_APPROVE, memory.id, USERS.approver);
    await appliedMessage(h, memory.id);
    clock.advance(60 * MINUTE + 1_000);
    await expect.poll(() => h.simulator.service(DEMO_IDS.ordersProd)?.numReplicas, { timeout: 10_000 }).toBe(3);
    await expect.poll(() => h.simulator.service(DEMO_IDS.ordersProd)?.maxReplicaMemoryGb, { timeout: 10_000 }).toBe(32);
  });
});

describe('two temporary scales waiting at once', () => {
  it('the second is refused while the first waits for approval, so both can never be approved and stack', async () => {
    const h = await harness();
    const first = await requestChange(h, 'scale orders-prod replicas 6 for 1h');
    const answer = await answerText(h, await h.command('scale orders-prod replicas 8 for 1h'));
    expect(answer).toContain(first.id);
    expect(answer).toContain('waiting for approval');
    expect(await h.bot.changeStore.listPending(CHANNEL, Date.now())).toHaveLength(1);
  });
});

describe('the state operation, exactly once', () => {
  it('the last two approvals of a stop clicked at once on two replicas of the bot: one PATCH …/state', async () => {
    const simulator = await CloudSimulator.start({
      keyId: KEY_ID,
      keySecret: KEY_SECRET,
      orgId: DEMO_ORG_ID,
      services: demoServices(),
      transitionMs: 200,
    });
    const slack = await FakeSlack.start();
    try {
      const env = { POLICY_FILE: policyFile(STOP_NEEDS_TWO) };
      const shared = { simulator, slack, keyPrefix: `test:${randomUUID().slice(0, 8)}:`, env };
      const a = await harness(shared);
      const b = await harness(shared);
      const { id } = await requestChange(a, 'stop events-staging');
      await Promise.all([
        a.click(ACTION_APPROVE, id, USERS.approver),
        b.click(ACTION_APPROVE, id, USERS.second),
        b.click(ACTION_APPROVE, id, USERS.approver),
        a.click(ACTION_APPROVE, id, USERS.second),
      ]);
      await appliedMessage(a, id);
      await a.bot.changeRequests.drain();
      await b.bot.changeRequests.drain();
      expect(patchesTo(a, '/state').map((r) => r.body)).toStrictEqual([{ command: 'stop' }]);
      expect((await a.bot.changeStore.get(id))?.approvals?.map((x) => x.userId).sort()).toStrictEqual(
        [USERS.approver, USERS.second].sort(),
      );
    } finally {
      await slack.close();
      await simulator.close();
    }
  });

  it('a 500 after the stop was applied is settled by a fresh read (stopping counts): applied, one stop', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'stop events-staging');
    h.simulator.faults.failNext(1, 500, { on: 'PATCH', afterApply: true });
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    await h.bot.changeRequests.drain();
    expect(patchesTo(h, '/state')).toHaveLength(1);
    expect(h.simulator.activities().filter((a) => a.type === 'service_stop')).toHaveLength(1);
  });

  it('a 429 on the stop is waited out and the stop sent once it is let through: one stop applied', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'stop events-staging');
    h.simulator.faults.failNext(1, 429, { on: 'PATCH' });
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    await h.bot.changeRequests.drain();
    expect(h.simulator.activities().filter((a) => a.type === 'service_stop')).toHaveLength(1);
  });

  it('a 500 on a wake that was not applied is not recorded applied because the service is still idle', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'wake "analytics staging"');
    h.simulator.faults.failNext(1, 500, { on: 'PATCH' });
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await expect.poll(async () => (await h.bot.changeStore.get(id))?.status, { timeout: 10_000 }).toBe('failed');
    expect(h.simulator.service(DEMO_IDS.analyticsStaging)?.state).toBe('idle');
  });
});

describe('Extend, Revert now and a deleted service', () => {
  it('Extend of a temporary scale moves its revert, which then restores exactly the replicas it replaced', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now });
    const { id } = await requestChange(h, 'scale orders-prod replicas 6 for 1h');
    const ts = await messageTsOf(h, id);
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    clock.advance(30 * MINUTE);
    expect(await answerText(h, await h.click(ACTION_EXTEND, id, USERS.requester))).toContain('posted in the thread');
    const extension = await h.slack.waitFor(
      'chat.postMessage',
      (x) => x.thread_ts === ts && textOf(x.blocks).includes(`Revert of ${id}`),
    );
    const extensionId = /CR-[0-9A-F]{10}/.exec(textOf(extension.args.blocks).replaceAll(id, ''))?.[0] ?? '';
    await h.click(ACTION_APPROVE, extensionId, USERS.approver);
    await h.slack.waitFor('chat.postMessage', (x) => x.thread_ts === ts && textOf(x.blocks).includes('Extended'));
    clock.advance(31 * MINUTE); // past the original expiry, within the extension
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.simulator.service(DEMO_IDS.ordersProd)?.numReplicas).toBe(6);
    clock.advance(30 * MINUTE); // 1h after its approval: the extension counts from the planned time (issue 35)
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.simulator.service(DEMO_IDS.ordersProd)?.numReplicas).toBe(6);
    clock.advance(30 * MINUTE); // 2h after the grant: its planned hour plus the extension's
    await expect.poll(() => h.simulator.service(DEMO_IDS.ordersProd)?.numReplicas, { timeout: 10_000 }).toBe(3);
    expect(patchesTo(h, '/replicaScaling').map((r) => r.body)).toStrictEqual([{ numReplicas: 6 }, { numReplicas: 3 }]);
  });

  it('Revert now scales back at once, once', async () => {
    const h = await harness();
    const before = h.simulator.service(DEMO_IDS.searchProd);
    const { id } = await requestChange(h, 'scale search-prod replicas 4-10 for 1h');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    await Promise.all([
      h.click(ACTION_REVERT_NOW, id, USERS.requester),
      h.click(ACTION_REVERT_NOW, id, USERS.approver),
    ]);
    await expect.poll(() => patchesTo(h, '/replicaScaling').length, { timeout: 10_000 }).toBe(2);
    await h.bot.changeRequests.drain();
    const [, back] = patchesTo(h, '/replicaScaling').map((r) => r.body);
    expect(back).toStrictEqual({ minReplicas: before?.minReplicas, maxReplicas: before?.maxReplicas });
    expect(h.simulator.service(DEMO_IDS.searchProd)?.maxReplicas).toBe(before?.maxReplicas);
  });

  it('a revert after the service was deleted sends nothing and says so in the thread, once', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now });
    const { id } = await requestChange(h, 'scale orders-prod replicas 6 for 1h');
    const ts = await messageTsOf(h, id);
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    h.simulator.removeService(DEMO_IDS.ordersProd);
    clock.advance(60 * MINUTE + 1_000);
    await h.slack.waitFor(
      'chat.postMessage',
      (x) => x.thread_ts === ts && textOf(x.blocks).includes('no longer exists'),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(patchesTo(h, '/replicaScaling')).toHaveLength(1);
    expect((await h.bot.changeStore.scheduledReverts()).map((r) => r.id)).not.toContain(id);
  });
});

/** Every text Slack parses as mrkdwn (plain_text shows mentions and links literally). */
function mrkdwnOf(value: unknown, top = true): string {
  if (Array.isArray(value)) return value.map((v) => mrkdwnOf(v, false)).join('\n');
  if (!value || typeof value !== 'object') return '';
  const record = value as Record<string, unknown>;
  const own = typeof record.text === 'string' && (top || record.type === 'mrkdwn') ? [record.text] : [];
  const nested = Object.entries(record)
    .filter(([key]) => key !== 'text' || typeof record.text !== 'string')
    .map(([, v]) => mrkdwnOf(v, false));
  return [...own, ...nested].join('\n');
}

describe('a hostile service name', () => {
  it('is escaped everywhere a capacity request shows it: request, warnings, progress and thread replies', async () => {
    const evil = demoServiceId(1);
    const orders = demoServices().find((s) => s.id === DEMO_IDS.ordersProd);
    if (!orders) throw new Error('no orders-prod in the demo');
    const name = '<!channel> *x* <@U0BOSS> <https://evil.example|click>';
    const h = await harness({
      services: [...demoServices(), { ...orders, id: evil, name, isPrimary: false }],
    });
    const { id } = await requestChange(h, `stop ${evil}`);
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    await h.slack.waitFor('chat.postMessage', (x) => textOf(x.blocks).includes('is stopped'));
    const said = h.slack.calls
      .filter((c) => c.method === 'chat.postMessage' || c.method === 'chat.update' || c.method === 'response_url')
      .map((c) => mrkdwnOf(c.args));
    expect(said.join('\n')).toContain('x');
    for (const text of said) {
      expect(text).not.toContain('<!channel>');
      expect(text).not.toContain('<@U0BOSS>');
      expect(text).not.toContain('<https://evil.example');
    }
  });
});

describe('the stale check at approval', () => {
  it('replicas changed by hand between request and approval: stale, nothing sent', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'scale orders-prod replicas 6');
    h.simulator.changeOutsideBot(DEMO_IDS.ordersProd, { numReplicas: 4 });
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await expect.poll(async () => (await h.bot.changeStore.get(id))?.status, { timeout: 10_000 }).toBe('failed');
    expect(patchesTo(h, '/replicaScaling')).toHaveLength(0);
    expect(h.simulator.service(DEMO_IDS.ordersProd)?.numReplicas).toBe(4);
  });

  it('a running service that went idle meanwhile can still be stopped; one stopped by hand cannot', async () => {
    const h = await harness();
    const idle = await requestChange(h, 'stop events-staging');
    const stopped = await requestChange(h, 'stop orders-prod');
    h.simulator.changeOutsideBot(DEMO_IDS.eventsStaging, { state: 'idle' });
    h.simulator.changeOutsideBot(DEMO_IDS.ordersProd, { state: 'stopped' });
    await h.click(ACTION_APPROVE, idle.id, USERS.approver);
    await appliedMessage(h, idle.id);
    await h.click(ACTION_APPROVE, stopped.id, USERS.approver);
    await expect
      .poll(async () => (await h.bot.changeStore.get(stopped.id))?.status, { timeout: 10_000 })
      .toBe('failed');
    expect(patchesTo(h, '/state').map((r) => r.path)).toStrictEqual([expect.stringContaining(DEMO_IDS.eventsStaging)]);
  });
});

describe('a flood of stops', () => {
  it('twelve services stopped at once under the shared rate limit: every stop applied once and followed to the end', async () => {
    const services = syntheticServices(12).map((service) => ({ ...service, state: 'running', isPrimary: false }));
    const h = await harness({
      services,
      simulatorTransitionMs: 1_500,
      env: { POLICY_FILE: policyFile('rules:\n  - name: anyone stops\n    match: {}\n    approvals: 0\n') },
      cloudClient: { throttle: { limit: 10, windowMs: 1_000 } },
      followSchedule: { firstMs: 100, factor: 1.5, maxMs: 500, totalMs: 20_000 },
    });
    h.simulator.faults.enforceRateLimit = { limit: 10, windowMs: 1_000 };
    await Promise.all(services.map((service, n) => h.command(`stop ${service.name}`, `U0PERSON${n}`)));
    await expect
      .poll(() => h.simulator.activities().filter((a) => a.type === 'service_stop').length, { timeout: 20_000 })
      .toBe(12);
    // Every follow ends with one reply in its thread (stopped, or a plain sentence), beside the
    // service record the thread already holds.
    const followEnd = (x: Record<string, unknown>) =>
      x.thread_ts !== undefined && /: (settled|went elsewhere|still moving)$/.test(String(x.text));
    await expect
      .poll(() => h.slack.callsOf('chat.postMessage', followEnd).length, { timeout: 30_000 })
      .toBeGreaterThanOrEqual(12);
    // A stop the API answered 429 to is sent again (it was not applied): still one stop per service.
    expect(new Set(patchesTo(h, '/state').map((r) => r.path)).size).toBe(12);
    expect(h.simulator.activities().filter((a) => a.type === 'service_stop')).toHaveLength(12);
    const stopped = services.filter((service) => h.simulator.service(service.id)?.state === 'stopped');
    expect(stopped).toHaveLength(12);
  });
});
