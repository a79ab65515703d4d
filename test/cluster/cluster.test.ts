/**
 * Scale-out on a real distributed store: the change and schedule stores, and two bot replicas,
 * against a Redis Cluster of three masters started on loopback for this file. Redis Cluster
 * refuses (CROSSSLOT) any script or multi-key command whose keys live in different hash slots, so
 * every script succeeding here is itself the proof that their keys share one slot; the slots are
 * also checked directly with CLUSTER KEYSLOT.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runApprovalContract } from '../store/approvals.contract.js';
import { runLeaseContract } from '../store/lease.contract.js';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { changeKeys } from '../../src/store/redis/keys.js';
import { RedisChangeStore, RedisScheduleStore, type RedisConnection } from '../../src/store/index.js';
import type { Schedule } from '../../src/core/schedule/types.js';
import { isMessageOf, requestChange, startHarness, textOf, USERS, type Harness } from '../e2e/harness.js';
import { runChangeStoreContract } from '../store/change-store.contract.js';
import { redisStoreOpeners } from '../support/stores.js';
import { approve, buildChangeRequest } from '../store/fixtures.js';
import { runScheduleStoreContract } from '../store/schedule-store.contract.js';
import { clusterUnsupported, startLocalCluster, type LocalCluster } from './local-cluster.js';

const unsupported = clusterUnsupported();
if (unsupported) console.warn(`SKIPPING the Redis Cluster tests: ${unsupported}`);

describe.skipIf(unsupported !== undefined)('on a Redis Cluster of three masters', () => {
  let cluster: LocalCluster;
  const connections: RedisConnection[] = [];

  beforeAll(async () => {
    cluster = await startLocalCluster(3);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(connections.splice(0).map((c) => c.quit().catch(() => c.disconnect())));
    await cluster?.stop();
  }, 20_000);

  /** A Cluster connection opened the way the bot opens it, seeded from node `seed`. */
  function connect(seed = 0): RedisConnection {
    const connection = cluster.connect(seed);
    connections.push(connection);
    return connection;
  }

  const keyslot = async (key: string) => Number(await cluster.node(0).cluster('KEYSLOT', key));

  /** Which node's port serves a slot, from CLUSTER SLOTS. */
  async function portOfSlot(slot: number): Promise<number> {
    const ranges = await cluster.node(0).cluster('SLOTS');
    const range = ranges.find(([from, to]) => slot >= from && slot <= to);
    const port = range?.[2]?.[1];
    if (port === undefined) throw new Error(`slot ${slot} is not served`);
    return port;
  }

  it('is really a cluster: three masters serving every slot, and it refuses a cross-slot script', async () => {
    const info = String(await cluster.node(1).cluster('INFO'));
    expect(info).toContain('cluster_state:ok');
    expect(info).toContain('cluster_slots_assigned:16384');
    expect(info).toContain('cluster_size:3');
    // The control for everything below: keys of two slots in one script are an error here.
    const redis = connect();
    const [a, b] = ['chbot:{changes}:x', 'chbot:{schedules}:x'];
    expect(await keyslot(a)).not.toBe(await keyslot(b));
    await expect(redis.eval("return redis.call('EXISTS', KEYS[1], KEYS[2])", 2, a, b)).rejects.toThrow(
      /CROSSSLOT|same slot/i,
    );
  });

  describe('key layout', () => {
    it('puts every key a change script touches in one slot, and every schedule key in one slot', async () => {
      const keys = changeKeys('chbot:');
      const changeKeyNames = [
        keys.request('CR-0000000001'),
        keys.request(randomUUID()),
        keys.pending('C0CHANNEL'),
        keys.pending('C-other'),
        keys.applying,
        keys.audit,
        keys.serviceLock(randomUUID()),
        keys.serviceLock(''),
      ];
      const changeSlots = new Set(await Promise.all(changeKeyNames.map(keyslot)));
      expect(changeSlots.size).toBe(1);
      const scheduleKeyNames = [
        'chbot:{schedules}:all',
        'chbot:{schedules}:lastrun',
        'chbot:{schedules}:snap:schedule:sch-1',
        'chbot:{schedules}:snap:adhoc:C1:',
      ];
      const scheduleSlots = new Set(await Promise.all(scheduleKeyNames.map(keyslot)));
      expect(scheduleSlots.size).toBe(1);
    });

    it('keeps what the stores actually wrote in one slot per family, on the node serving it', async () => {
      const keyPrefix = `cl-${randomUUID().slice(0, 8)}:`;
      const redis = connect();
      const changes = new RedisChangeStore(redis, { keyPrefix });
      const schedules = new RedisScheduleStore(redis, { keyPrefix });
      const request = buildChangeRequest({ channelId: 'C-layout' });
      await changes.create(request);
      await changes.transition(request.id, approve());
      await schedules.addSchedule(schedule({ id: 'sch-layout' }));
      await schedules.claimRun('sch-layout', 1);
      await schedules.writeSnapshot('schedule:sch-layout', '{}');

      const written: string[] = [];
      for (let i = 0; i < cluster.ports.length; i++) {
        const found = await cluster.node(i).keys(`${keyPrefix}*`);
        const port = cluster.ports[i];
        for (const key of found) {
          // A node only holds keys of its own slots, so this also checks routing.
          expect(await portOfSlot(await keyslot(key))).toBe(port);
          written.push(key);
        }
      }
      const family = (tag: string) => written.filter((key) => key.includes(tag));
      expect(family('{changes}').length).toBeGreaterThanOrEqual(4); // request, pending, applying, audit
      expect(family('{schedules}').length).toBe(3); // all, lastrun, snapshot
      expect(written).toHaveLength(family('{changes}').length + family('{schedules}').length);
      expect(new Set(await Promise.all(family('{changes}').map(keyslot))).size).toBe(1);
      expect(new Set(await Promise.all(family('{schedules}').map(keyslot))).size).toBe(1);
    });
  });

  /**
   * Two Cluster connections seeded from different nodes (two replicas) that every contract case
   * shares, each on its own key prefix.
   */
  let contractConnections: [RedisConnection, RedisConnection] | undefined;
  const contractStores = redisStoreOpeners(() => (contractConnections ??= [connect(0), connect(2)]));

  it('serves the audit export outbox: cursors (consumer groups), leases and the retention count, in the audit slot', async () => {
    const keyPrefix = `cl-${randomUUID().slice(0, 8)}:`;
    const changes = new RedisChangeStore(connect(1), { keyPrefix });
    const outbox = changes.auditOutbox();
    const sink = 'webhook:https://siem.example.com/hook';
    await outbox.openSink(sink);
    const request = buildChangeRequest({ channelId: 'C-export' });
    await changes.create(request);
    await changes.transition(request.id, approve());
    await outbox.record({ action: 'policy-reloaded', summary: 'reloaded' });
    expect(await outbox.queued(sink)).toBe(3);
    const { records, lost } = await outbox.next(sink, 10);
    expect(lost).toBe(0);
    expect(records.map((r) => r.fields.action)).toEqual(['requested', 'approved', 'policy-reloaded']);
    for (const record of records) await outbox.acknowledge(sink, record.id);
    expect(await outbox.queued(sink)).toBe(0);
    expect(await outbox.holdSink(sink, 'replica-a', 5_000)).toBe(true);
    expect(await changes.auditOutbox().holdSink(sink, 'replica-b', 5_000)).toBe(false);
    const keys = changeKeys(keyPrefix);
    expect(await keyslot(keys.auditSinkLease('export:webhook:0123456789abcdef'))).toBe(await keyslot(keys.audit));
  });

  describe('the change store contract', () => runChangeStoreContract(contractStores.changeStores));
  runLeaseContract('Redis Cluster, two connections seeded from different nodes', () => contractStores.changeStores({}));
  runApprovalContract('Redis Cluster, two connections seeded from different nodes', () =>
    contractStores.changeStores({}),
  );
  describe('the schedule store contract', () => runScheduleStoreContract(contractStores.scheduleStores));

  describe('two bot replicas sharing the Cluster (REDIS_URL of a different node each, REDIS_CLUSTER=true)', () => {
    const running: Harness[] = [];
    afterEach(async () => {
      while (running.length > 0) await running.pop()?.stop();
    });

    it('applies an approval exactly once when both replicas receive clicks at the same moment', async () => {
      const a = await startHarness({
        storesFromConfig: true,
        env: { REDIS_URL: cluster.seedUrl(0), REDIS_CLUSTER: 'true' },
      });
      running.push(a);
      const b = await startHarness({
        storesFromConfig: true,
        simulator: a.simulator,
        slack: a.slack,
        env: { REDIS_URL: cluster.seedUrl(2), REDIS_CLUSTER: 'true' },
      });
      running.push(b);
      expect(a.logs.join('\n')).toContain('Redis Cluster');

      for (const [text, service] of [
        ['ip remove orders-prod 198.51.100.7', DEMO_IDS.ordersProd],
        ['rename sandbox-dev sandbox-two', DEMO_IDS.sandboxDev],
      ] as const) {
        const before = a.simulator.requests.filter((r) => r.method === 'PATCH').length;
        const after = a.slack.calls.length;
        const ack = await a.command(text);
        expect(ack.status).toBe(200);
        const posted = await a.slack.waitFor(
          'chat.postMessage',
          (args) => textOf(args.blocks).includes('Change request'),
          { after },
        );
        const id = /CR-[0-9A-F]{10}/.exec(textOf(posted.args.blocks))?.[0];
        if (!id) throw new Error('no request id');
        await a.slack.waitFor('response_url', (args) => args.responseUrlId === ack.responseUrlId);
        // The request written through replica A's connection is visible through replica B's.
        expect((await b.bot.changeStore.get(id))?.status).toBe('pending');
        expect((await b.bot.changeStore.listPending('C0CHANNEL', Date.now())).map((r) => r.id)).toContain(id);

        const clicks = await Promise.all([
          a.click(ACTION_APPROVE, id, USERS.approver),
          b.click(ACTION_APPROVE, id, USERS.second),
          b.click(ACTION_APPROVE, id, USERS.approver),
          a.click(ACTION_APPROVE, id, USERS.second),
        ]);
        expect(clicks.every((c) => c.status === 200)).toBe(true);
        await a.slack.waitFor(
          'chat.update',
          (args) => textOf(args.blocks).includes(id) && textOf(args.blocks).includes('Applied'),
        );
        await a.slack.waitFor('chat.postMessage', (args) => textOf(args.blocks).includes(`after change ${id}`));
        // Give a losing replica time to misbehave, if it were going to.
        await new Promise((resolve) => setTimeout(resolve, 200));
        const patches = a.simulator.requests.filter((r) => r.method === 'PATCH');
        expect(patches.length - before).toBe(1);
        expect(patches.at(-1)?.path).toContain(service);
        const audit = await a.bot.changeStore.readAudit({ serviceId: service, limit: 10 });
        expect(audit.map((e) => e.action)).toStrictEqual(['applied', 'approved', 'requested']);
      }
    });

    it('serialises two approvals of one service across replicas: the second is refused as stale', async () => {
      const a = await startHarness({
        storesFromConfig: true,
        env: { REDIS_URL: cluster.seedUrl(0), REDIS_CLUSTER: 'true' },
      });
      running.push(a);
      const b = await startHarness({
        storesFromConfig: true,
        simulator: a.simulator,
        slack: a.slack,
        env: { REDIS_URL: cluster.seedUrl(1), REDIS_CLUSTER: 'true' },
      });
      running.push(b);
      a.simulator.faults.latencyMs = 150;
      const first = await requestChange(a, 'rename sandbox-dev sandbox-first');
      const second = await requestChange(b, 'rename sandbox-dev sandbox-second');
      await Promise.all([
        a.click(ACTION_APPROVE, first.id, USERS.approver),
        b.click(ACTION_APPROVE, second.id, USERS.second),
      ]);
      for (const id of [first.id, second.id]) {
        await a.slack.waitFor(
          'chat.update',
          (args) => isMessageOf(args, id) && /Applied|Not applied/.test(textOf(args.blocks)),
        );
      }
      const outcomes = await Promise.all([first.id, second.id].map((id) => a.bot.changeStore.get(id)));
      expect(outcomes.map((r) => r?.status).sort()).toStrictEqual(['applied', 'failed']);
      expect(outcomes.find((r) => r?.status === 'failed')?.outcome?.message).toContain(
        'The service changed since this request was made (Name)',
      );
      expect(a.simulator.requests.filter((r) => r.method === 'PATCH')).toHaveLength(1);
    });

    it('posts each fire time of a schedule once, though both replicas fire it', async () => {
      const a = await startHarness({
        storesFromConfig: true,
        env: { REDIS_URL: cluster.seedUrl(1), REDIS_CLUSTER: 'true' },
      });
      running.push(a);
      const b = await startHarness({
        storesFromConfig: true,
        simulator: a.simulator,
        slack: a.slack,
        env: { REDIS_URL: cluster.seedUrl(0), REDIS_CLUSTER: 'true' },
      });
      running.push(b);
      // Record every claim each replica's scheduler makes, and what the Cluster answered.
      const claims: Array<{ replica: string; fireTime: number; won: boolean }> = [];
      for (const [replica, h] of [
        ['a', a],
        ['b', b],
      ] as const) {
        const store = h.bot.services.scheduleStore;
        const claim = store.claimRun.bind(store);
        vi.spyOn(store, 'claimRun').mockImplementation(async (scheduleId, fireTime) => {
          const won = await claim(scheduleId, fireTime);
          claims.push({ replica, fireTime, won });
          return won;
        });
      }
      const started = Date.now();
      const ack = await a.command('schedule add "*/1 * * * * *"');
      const added = await a.slack.waitFor('response_url', (args) => args.responseUrlId === ack.responseUrlId);
      const id = /sch-[0-9a-f]{16}/.exec(textOf(added.args))?.[0];
      if (!id) throw new Error(`no schedule id in ${textOf(added.args)}`);
      // Replica B learns of the schedule through its periodic sync (200 ms in the harness).
      const headline = (args: Record<string, unknown>) =>
        typeof args.text === 'string' &&
        args.text.startsWith('Scheduled ClickHouse Cloud summary') &&
        args.thread_ts === undefined;
      // Until both replicas have tried two fire times (every second), instead of a fixed 3.3 s.
      const contestedSoFar = () =>
        new Set(
          claims
            .filter((c) => claims.some((o) => o.fireTime === c.fireTime && o.replica !== c.replica))
            .map((c) => c.fireTime),
        ).size;
      await expect.poll(contestedSoFar, { timeout: 10_000, interval: 50 }).toBeGreaterThanOrEqual(2);
      const removed = await a.command(`schedule remove ${id}`);
      await a.slack.waitFor('response_url', (args) => args.responseUrlId === removed.responseUrlId);
      const byFireTime = new Map<number, typeof claims>();
      for (const c of claims) byFireTime.set(c.fireTime, [...(byFireTime.get(c.fireTime) ?? []), c]);
      // Both replicas tried the same fire times, and the Cluster gave each to exactly one of them.
      const contested = [...byFireTime.values()].filter((list) => new Set(list.map((c) => c.replica)).size === 2);
      expect(contested.length).toBeGreaterThanOrEqual(2);
      for (const list of byFireTime.values()) expect(list.filter((c) => c.won)).toHaveLength(1);
      // One headline per fire time (a summary still being posted gets a moment to land).
      const posts = () => a.slack.callsOf('chat.postMessage', headline).filter((c) => c.at >= started);
      for (let waited = 0; posts().length < byFireTime.size && waited < 3_000; waited += 50)
        await new Promise((resolve) => setTimeout(resolve, 50));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(posts().length).toBe(byFireTime.size);
      expect(posts().length).toBeGreaterThanOrEqual(2);
    });
  });
});

function schedule(overrides: Partial<Schedule> = {}): Schedule {
  return {
    id: 'sch-000001',
    channelId: 'C-ops',
    cron: '0 9 * * 1-5',
    timeZone: 'UTC',
    filters: [],
    createdBy: 'U-alice',
    createdAt: Date.now(),
    ...overrides,
  };
}
