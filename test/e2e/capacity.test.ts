/**
 * Scale, idle, stop, start and wake from Slack (issue 24), end to end: the real bot over signed
 * HTTP, real Redis, the simulator's replicaScaling and state endpoints. Reverts are due on a clock
 * the test moves forward; everything else runs in real time.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { DEMO_IDS, DEMO_ORG_ID, demoServices } from '../../src/simulator/seed.js';
import { CloudSimulator } from '../../src/simulator/server.js';
import { FakeSlack } from './fake-slack.js';
import {
  answerText,
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

describe('scale', () => {
  it('shows replicas and total memory before -> after, and scales once on approval', async () => {
    const h = await harness();
    const { id, posted } = await requestChange(h, 'scale orders-prod replicas 6');
    const text = textOf(posted.args.blocks);
    expect(text).toContain('*Replicas*: `3` → `6`');
    expect(text).toContain('*Total memory*: `24–96 GB` → `48–192 GB`');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    expect(patchesTo(h, '/replicaScaling').map((r) => r.body)).toStrictEqual([{ numReplicas: 6 }]);
    expect(h.simulator.service(DEMO_IDS.ordersProd)?.numReplicas).toBe(6);
  });

  it('needs the two approvals a replicas rule names, across two replicas of the bot, and sends one PATCH', async () => {
    const simulator = await CloudSimulator.start({
      keyId: KEY_ID,
      keySecret: KEY_SECRET,
      orgId: DEMO_ORG_ID,
      services: demoServices(),
      transitionMs: 200,
    });
    const slack = await FakeSlack.start();
    try {
      const policy = policyFile(
        'rules:\n  - name: capacity needs two\n    match: { changes: [replicas] }\n    approvals: 2\n',
      );
      const shared = { simulator, slack, keyPrefix: `test:${randomUUID().slice(0, 8)}:`, env: { POLICY_FILE: policy } };
      const a = await harness(shared);
      const b = await harness(shared);
      const { id, posted } = await requestChange(a, 'scale search-prod replicas 2-8');
      expect(textOf(posted.args.blocks)).toContain('capacity needs two');
      await a.click(ACTION_APPROVE, id, USERS.approver);
      await slack.waitFor('chat.update', (x) => textOf(x.blocks).includes(id) && textOf(x.blocks).includes('1 of 2'));
      // The second approval arrives on the other replica, twice at once.
      await Promise.all([b.click(ACTION_APPROVE, id, USERS.second), a.click(ACTION_APPROVE, id, USERS.second)]);
      await appliedMessage(a, id);
      await a.bot.changeRequests.drain();
      await b.bot.changeRequests.drain();
      expect(patchesTo(a, '/replicaScaling').map((r) => r.body)).toStrictEqual([{ minReplicas: 2, maxReplicas: 8 }]);
    } finally {
      await slack.close();
      await simulator.close();
    }
  });

  it('refuses what the API would refuse before anything is posted, in a sentence', async () => {
    const h = await harness();
    const answers = [];
    for (const text of [
      'scale orders-prod replicas 2-6',
      'scale orders-prod memory 10',
      'scale orders-prod replicas 6-2',
      'scale orders-prod replicas 3',
      'stop orders-staging',
      'start orders-prod',
      'idle orders-prod on after 2m',
      'scale orders-prod cpus 4',
    ])
      answers.push(await answerText(h, await h.command(text)));
    expect(answers).toStrictEqual([
      expect.stringContaining('orders-prod scales vertically: a replica range needs horizontal autoscaling'),
      expect.stringContaining('Memory per replica must be a multiple of 4 between 8 and 356 GB; 10 is not.'),
      expect.stringContaining('write 2-6, not 6-2'),
      expect.stringContaining('orders-prod already runs 3 replicas.'),
      expect.stringContaining('orders-staging is already stopped.'),
      expect.stringContaining('orders-prod is already running.'),
      expect.stringContaining('The idle timeout must be a whole number of minutes, at least 5; 2 is not.'),
      expect.stringContaining('scale sets replicas or memory, not "cpus"'),
    ]);
    expect(h.slack.callsOf('chat.postMessage', (a) => textOf(a.blocks).includes('Change request'))).toHaveLength(0);
  });

  it('treats an empty byocId as "not BYOC": a memory size only BYOC refuses is planned and applied', async () => {
    const services = demoServices().map((service) =>
      service.id === DEMO_IDS.ordersProd ? { ...service, byocId: '', dataWarehouseId: ' ' } : service,
    );
    const h = await harness({ services });
    const { id, posted } = await requestChange(h, 'scale orders-prod memory 24');
    expect(textOf(posted.args.blocks)).not.toContain('BYOC');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    expect(h.simulator.service(DEMO_IDS.ordersProd)?.maxReplicaMemoryGb).toBe(24);
    const show = await h.command('show orders-prod', USERS.requester);
    expect(await answerText(h, show)).not.toMatch(/BYOC|warehouse/i);
  });

  it("passes the API's 400 on as a sentence with its request id, and records nothing as applied", async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'scale orders-prod memory 16-64');
    h.simulator.faults.failNext(1, 400, { on: 'PATCH' });
    await h.click(ACTION_APPROVE, id, USERS.approver);
    const failed = await h.slack.waitFor(
      'chat.update',
      (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Not applied'),
    );
    expect(textOf(failed.args.blocks)).toMatch(/400/);
    expect(textOf(failed.args.blocks)).toMatch(/request id|requestId|API request/i);
    expect((await h.bot.changeStore.get(id))?.status).toBe('failed');
    expect(h.simulator.service(DEMO_IDS.ordersProd)?.maxReplicaMemoryGb).toBe(32);
  });

  it('warns about a production stop and a fourfold cost, and matches the stop and capacity-up-large risks', async () => {
    const policy = policyFile(
      [
        'rules:',
        '  - name: stopping needs two',
        '    match: { risks: [stop] }',
        '    approvals: 2',
        '  - name: big spend needs two',
        '    match: { risks: [capacity-up-large] }',
        '    approvals: 2',
        '',
      ].join('\n'),
    );
    const h = await harness({ env: { POLICY_FILE: policy } });
    const stop = textOf((await requestChange(h, 'stop orders-prod')).posted.args.blocks);
    expect(stop).toContain('tagged production: stopping it takes it offline');
    expect(stop).toContain('stopping needs two');
    const big = textOf((await requestChange(h, 'scale orders-prod memory 128')).posted.args.blocks);
    expect(big).toContain('Total memory grows from 24–96 GB to 384 GB, 4× or more');
    expect(big).toContain('big spend needs two');
    const policyText = await answerText(h, await h.command('policy orders-prod'));
    for (const kind of ['replicas', 'memory', 'idle-scaling', 'power']) expect(policyText).toContain(kind);
    expect(policyText).toContain('stop');
  });
});

describe('stop, start and wake', () => {
  it('stops a service: the API is called once, and the thread is told once it has stopped', async () => {
    const h = await harness();
    const { id, posted } = await requestChange(h, 'stop events-staging');
    expect(textOf(posted.args.blocks)).toContain('*State*: `running` → `stopped`');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    expect(patchesTo(h, '/state').map((r) => r.body)).toStrictEqual([{ command: 'stop' }]);
    // The bot follows the service and says in the thread when it has stopped.
    const ts = await messageTsOf(h, id);
    const settled = await h.slack.waitFor(
      'chat.postMessage',
      (a) => a.thread_ts === ts && textOf(a.blocks).includes('is stopped'),
    );
    expect(textOf(settled.args.blocks)).toContain('events-staging');
    expect(h.simulator.service(DEMO_IDS.eventsStaging)?.state).toBe('stopped');
  });

  it('wakes an idle service and refuses wake … for', async () => {
    const h = await harness();
    const refused = await answerText(h, await h.command('wake "analytics staging" for 2h'));
    expect(refused).toContain('a woken service goes idle again by itself');
    const { id } = await requestChange(h, 'wake "analytics staging"');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    expect(patchesTo(h, '/state').map((r) => r.body)).toStrictEqual([{ command: 'awake' }]);
  });

  it('start for 2h is stopped again once, exactly when due', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now });
    const { id, posted } = await requestChange(h, 'start orders-staging for 2h');
    expect(textOf(posted.args.blocks)).toContain('Temporary:* for 2h');
    const ts = await messageTsOf(h, id);
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    await expect.poll(() => h.simulator.service(DEMO_IDS.ordersStaging)?.state, { timeout: 5_000 }).toBe('running');
    clock.advance(2 * 60 * MINUTE + 1_000);
    await h.slack.waitFor(
      'chat.update',
      (x) => textOf(x.blocks).includes(`${id}-R`) && textOf(x.blocks).includes('Applied'),
    );
    await h.bot.changeRequests.drain();
    expect(patchesTo(h, '/state').map((r) => r.body)).toStrictEqual([{ command: 'start' }, { command: 'stop' }]);
    expect(
      h.slack.callsOf('chat.postMessage', (x) => x.thread_ts === ts && textOf(x.blocks).includes('Revert')),
    ).not.toHaveLength(0);
    await expect.poll(() => h.simulator.service(DEMO_IDS.ordersStaging)?.state, { timeout: 5_000 }).toBe('stopped');
  });
});

describe('temporary scaling', () => {
  it('scales back to exactly the replicas it replaced', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now });
    const { id } = await requestChange(h, 'scale orders-prod replicas 6 for 4h');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    clock.advance(4 * 60 * MINUTE + 1_000);
    await h.slack.waitFor(
      'chat.update',
      (x) => textOf(x.blocks).includes(`${id}-R`) && textOf(x.blocks).includes('Applied'),
    );
    expect(patchesTo(h, '/replicaScaling').map((r) => r.body)).toStrictEqual([{ numReplicas: 6 }, { numReplicas: 3 }]);
    expect(h.simulator.service(DEMO_IDS.ordersProd)?.numReplicas).toBe(3);
  });

  it('leaves replicas changed by hand in the meantime alone, and says so in the thread', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now });
    const { id } = await requestChange(h, 'scale orders-prod replicas 6 for 1h');
    const ts = await messageTsOf(h, id);
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    // Someone scales it in the console meanwhile.
    h.simulator.changeOutsideBot(DEMO_IDS.ordersProd, { numReplicas: 5 });
    clock.advance(60 * MINUTE + 1_000);
    const said = await h.slack.waitFor(
      'chat.postMessage',
      (x) => x.thread_ts === ts && textOf(x.blocks).includes('changed by hand'),
    );
    expect(textOf(said.args.blocks)).toContain('replicas is 5, not 6');
    await h.bot.changeRequests.drain();
    expect(patchesTo(h, '/replicaScaling')).toHaveLength(1);
    expect(h.simulator.service(DEMO_IDS.ordersProd)?.numReplicas).toBe(5);
  });
});
