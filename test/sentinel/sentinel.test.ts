/**
 * High availability with Redis Sentinel, on real processes: a master, one replica and three
 * Sentinels started on loopback for this file (local-sentinel.ts). Every connection is opened the
 * way the bot opens it from REDIS_URL (password, database) and REDIS_SENTINELS. The store keeps its
 * promises through the Sentinel connection, then through two failovers that happen while the
 * same store instances stay open: the master killed with SIGKILL, and a manual SENTINEL FAILOVER
 * that leaves the demoted master up and still accepting writes for a while.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runApprovalContract } from '../store/approvals.contract.js';
import { runLeaseContract } from '../store/lease.contract.js';
import type { ChangeRequest } from '../../src/core/change/types.js';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { connectRedis, RedisChangeStore } from '../../src/store/index.js';
import { changeKeys } from '../../src/store/redis/keys.js';
import { startHarness, textOf, USERS, type Harness } from '../e2e/harness.js';
import { runChangeStoreContract } from '../store/change-store.contract.js';
import { redisStoreOpeners } from '../support/stores.js';
import { approve, buildChangeRequest } from '../store/fixtures.js';
import { runScheduleStoreContract } from '../store/schedule-store.contract.js';
import {
  fields,
  MASTER_NAME,
  PASSWORD,
  sentinelUnsupported,
  startLocalSentinel,
  until,
  type LocalSentinel,
} from './local-sentinel.js';

/** The role in a ROLE reply (its first element). */
const roleName = (reply: unknown): unknown => (Array.isArray(reply) ? reply[0] : reply);

const unsupported = sentinelUnsupported();
if (unsupported)
  console.warn(`SKIPPING the Redis Sentinel tests: redis-server --sentinel is not available here (${unsupported})`);

describe.skipIf(unsupported !== undefined)('through Redis Sentinel (a master, a replica, three Sentinels)', () => {
  let setup: LocalSentinel;
  let firstMaster: number;
  let firstReplica: number;
  const connections: Redis[] = [];

  beforeAll(async () => {
    setup = await startLocalSentinel(3);
    [firstMaster, firstReplica] = setup.dataPorts;
  }, 30_000);

  afterAll(async () => {
    for (const connection of connections.splice(0)) connection.disconnect();
    await setup?.stop();
  }, 20_000);

  /** A connection opened as the bot opens it; errors during failovers are expected and ignored. */
  function connect(db = 0): Redis {
    const connection = setup.connect(db);
    connection.on('error', () => undefined);
    connections.push(connection);
    return connection;
  }

  const prefix = () => `sn-${randomUUID().slice(0, 8)}:`;

  /** Two stores on one key prefix over two Sentinel connections (two bot replicas). */
  function openPair(db = 0) {
    const keyPrefix = prefix();
    const [ca, cb] = [connect(db), connect(db)];
    return {
      keyPrefix,
      ca,
      cb,
      a: new RedisChangeStore(ca, { keyPrefix }),
      b: new RedisChangeStore(cb, { keyPrefix }),
    };
  }

  async function created(store: RedisChangeStore, overrides: Partial<ChangeRequest> = {}): Promise<ChangeRequest> {
    const request = buildChangeRequest(overrides);
    await store.create(request);
    return request;
  }

  /** 2 × half concurrent approvals from both stores: exactly one wins, once in the audit trail. */
  async function approveRace(a: RedisChangeStore, b: RedisChangeStore, id: string, total = 200) {
    const results = await Promise.all(
      Array.from({ length: total }, (_, i) => (i % 2 === 0 ? a : b).transition(id, approve(`U-${i}`))),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok && r.reason === 'conflict')).toHaveLength(total - 1);
    const audit = await b.readAudit({ limit: 1000 });
    expect(audit.filter((e) => e.changeId === id && e.action === 'approved')).toHaveLength(1);
  }

  /** The TCP port of the server this connection is talking to. */
  const serverPort = async (connection: Redis) => Number(/tcp_port:(\d+)/.exec(await connection.info('server'))?.[1]);

  it('is really Sentinel-managed: three Sentinels agree on the master, which has one replica', async () => {
    expect(await setup.masterPort()).toBe(firstMaster);
    const master = fields(await setup.sentinel(1).call('SENTINEL', 'MASTER', MASTER_NAME));
    expect(master).toMatchObject({
      port: String(firstMaster),
      flags: 'master',
      quorum: '1',
      'num-slaves': '1',
      'num-other-sentinels': '2',
    });
    expect(await setup.node(firstReplica).call('ROLE')).toEqual(
      expect.arrayContaining(['slave', '127.0.0.1', firstMaster]),
    );
    // The data nodes require the password (so connections below prove they send it).
    const anonymous = new Redis({
      port: firstMaster,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    anonymous.on('error', () => undefined);
    await expect(anonymous.set('x', '1')).rejects.toThrow(/NOAUTH/);
    anonymous.disconnect();
  });

  it("connects through the Sentinels with REDIS_URL's password and database, past a dead Sentinel listed first", async () => {
    const printed = vi.spyOn(console, 'error');
    const deadSentinel = { host: '127.0.0.1', port: 1 };
    const connection = connectRedis(setup.url(5), {
      sentinel: { ...setup.target, sentinels: [deadSentinel, ...setup.target.sentinels] },
    });
    const errors: string[] = [];
    connection.on('error', (error: Error) => errors.push(error.message));
    connections.push(connection);
    const keyPrefix = prefix();
    const store = new RedisChangeStore(connection, { keyPrefix });
    expect(await store.ping()).toBe(true);
    expect(await serverPort(connection)).toBe(firstMaster);
    const request = await created(store);
    // Written to database 5 of the master, read here without Sentinel.
    const direct = new Redis({
      port: firstMaster,
      password: PASSWORD,
      db: 5,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
    });
    try {
      expect(await direct.hget(changeKeys(keyPrefix).request(request.id), 'status')).toBe('pending');
      expect(await direct.select(0).then(() => direct.exists(changeKeys(keyPrefix).request(request.id)))).toBe(0);
    } finally {
      direct.disconnect();
    }
    // The failover detector cannot subscribe to the dead Sentinel: reported to the connection's
    // error listeners (the bot's log), not printed by ioredis.
    await until('the dead Sentinel to be reported', 5_000, () =>
      errors.some((e) => e.startsWith('Sentinel 127.0.0.1:1 (watched for failovers): connect ECONNREFUSED'))
        ? true
        : undefined,
    );
    expect(printed).not.toHaveBeenCalled();
    printed.mockRestore();

    // Without REDIS_URL there is no password, and the master says so.
    const anonymous = connectRedis(undefined, { sentinel: setup.target });
    anonymous.on('error', () => undefined);
    connections.push(anonymous);
    const refused = await anonymous.get('x').then(
      () => 'answered',
      (error: unknown) => String(error),
    );
    expect(refused).toMatch(/NOAUTH/);
  });

  /** Two Sentinel connections (two replicas) that every contract case shares, each on its own key prefix. */
  let contractConnections: [Redis, Redis] | undefined;
  const contractStores = redisStoreOpeners(() => (contractConnections ??= [connect(), connect()]));
  runLeaseContract('Redis Sentinel, two connections', () => contractStores.changeStores({}));
  runApprovalContract('Redis Sentinel, two connections', () => contractStores.changeStores({}));

  describe('the change store contract', () => runChangeStoreContract(contractStores.changeStores));
  describe('the schedule store contract', () => runScheduleStoreContract(contractStores.scheduleStores));

  describe('a bot started from REDIS_URL and REDIS_SENTINELS', () => {
    let h: Harness | undefined;
    afterEach(async () => {
      await h?.stop();
      h = undefined;
    });

    it('logs the mode without the password, and applies an approval exactly once, in the database of REDIS_URL', async () => {
      h = await startHarness({
        storesFromConfig: true,
        env: { REDIS_URL: setup.url(3), REDIS_SENTINELS: setup.sentinelsSetting },
      });
      const log = h.logs.join('\n');
      expect(log).toContain(
        `Redis Sentinel: master group "mymaster" through the Sentinels at ${setup.sentinelPorts.map((p) => `127.0.0.1:${p}`).join(', ')}, database 3`,
      );
      expect(log).not.toContain(PASSWORD);
      expect(log).not.toContain(encodeURIComponent(PASSWORD));
      expect(log).not.toContain('IN-MEMORY STORE');

      const ack = await h.command('ip remove orders-prod 198.51.100.7');
      expect(ack.status).toBe(200);
      const posted = await h.slack.waitFor('chat.postMessage', (args) =>
        textOf(args.blocks).includes('Change request'),
      );
      const id = /CR-[0-9A-F]{10}/.exec(textOf(posted.args.blocks))?.[0];
      if (!id) throw new Error('no request id');
      const clicks = await Promise.all([
        h.click(ACTION_APPROVE, id, USERS.approver),
        h.click(ACTION_APPROVE, id, USERS.second),
      ]);
      expect(clicks.every((c) => c.status === 200)).toBe(true);
      await h.slack.waitFor(
        'chat.update',
        (args) => textOf(args.blocks).includes(id) && textOf(args.blocks).includes('Applied'),
      );
      const patches = h.simulator.requests.filter((r) => r.method === 'PATCH');
      expect(patches).toHaveLength(1);
      expect(patches[0]?.path).toContain(DEMO_IDS.ordersProd);

      // The request is in database 3 of the master the Sentinels name.
      const direct = new Redis({
        port: firstMaster,
        password: PASSWORD,
        db: 3,
        lazyConnect: true,
        maxRetriesPerRequest: 0,
      });
      try {
        expect(await direct.hget(changeKeys('chbot:').request(id), 'status')).toBe('applied');
      } finally {
        direct.disconnect();
      }
    });
  });

  describe('failover, with the same store instances open throughout', () => {
    it('after the master is SIGKILLed, reads the pending request from the promoted replica and approves it exactly once', async () => {
      const { keyPrefix, ca, a, b } = openPair();
      const request = await created(a);
      const key = changeKeys(keyPrefix).request(request.id);
      // Replication is asynchronous and nothing is persisted: make sure the replica has the request
      // before its master dies, or the test would only show that an unreplicated write is lost.
      expect(await ca.call('WAIT', 1, 2_000)).toBe(1);
      expect(await setup.node(firstReplica).hget(key, 'status')).toBe('pending');

      const killedAt = Date.now();
      await setup.kill(firstMaster);
      const promotedMs = await setup.waitForMaster(firstReplica, 15_000);
      // ioredis finds the new master through the Sentinels; on a loaded 2-core machine (three test
      // workers) that took over 10 s once, so the budget is the failover's, not a tight bound.
      await until('both stores to answer again', 20_000, async () =>
        (await a.ping()) && (await b.ping()) ? true : undefined,
      );
      const backMs = Date.now() - killedAt;
      console.info(
        `SIGKILL failover: the Sentinels named the replica after ${promotedMs} ms, the stores answered ${backMs} ms after the kill`,
      );

      expect(await a.get(request.id)).toStrictEqual(request);
      expect(await serverPort(ca)).toBe(firstReplica);
      await approveRace(a, b, request.id, 100);
      expect(await setup.node(firstReplica).hget(key, 'status')).toBe('applying');
      expect(await setup.node(firstReplica).call('ROLE').then(roleName)).toBe('master');
    }, 45_000);

    it('after a manual SENTINEL FAILOVER, leaves the demoted master (still up, still accepting writes) at once and approves exactly once on the new one', async () => {
      // The killed node comes back as a replica of the current master; it is the one promoted.
      const [oldMaster, newMaster] = [firstReplica, firstMaster];
      await setup.startReplica(newMaster, oldMaster);
      await until('Sentinel to see the restarted node as a healthy replica', 10_000, async () => {
        const replicas = (await setup.sentinel(0).call('SENTINEL', 'REPLICAS', MASTER_NAME)) as unknown[];
        const entry = replicas.map(fields).find((r) => r.port === String(newMaster));
        return entry?.flags === 'slave' && entry['master-link-status'] === 'ok' ? true : undefined;
      });

      const { keyPrefix, ca, cb, a, b } = openPair();
      const request = await created(a);
      const key = changeKeys(keyPrefix).request(request.id);
      // The request reached the replica before the failover. A replica just back from being killed may
      // still be loading its copy on a busy machine: asked again until it acknowledges (2 s once was too short).
      await until('the replica to acknowledge the request', 15_000, async () =>
        (await ca.call('WAIT', 1, 1_000)) === 1 ? true : undefined,
      );
      expect(await serverPort(ca)).toBe(oldMaster);

      const startedAt = Date.now();
      await until('Sentinel to accept the failover', 10_000, async () =>
        (await setup.sentinel(0).call('SENTINEL', 'FAILOVER', MASTER_NAME)) === 'OK' ? true : undefined,
      );
      await setup.waitForMaster(newMaster, 15_000);
      const switchedMs = Date.now() - startedAt;
      // The connection leaves on Sentinel's +switch-master (ioredis's failover detector). Sentinel
      // itself only reconfigures the demoted master about 8 s later: until then it still says it is
      // a master, and a connection left on it would write where nobody reads.
      await until('the store connection to move to the new master', 3_000, async () =>
        (await serverPort(ca)) === newMaster ? true : undefined,
      );
      const movedMs = Date.now() - startedAt;
      // The second replica's connection moves the same way; on a loaded machine it may lag a little.
      await until('the second store connection to move too', 5_000, async () =>
        (await serverPort(cb)) === newMaster ? true : undefined,
      );
      expect(await setup.node(oldMaster).call('ROLE').then(roleName)).toBe('master');
      console.info(
        `manual failover: the Sentinels switched after ${switchedMs} ms, the store connection moved after ${movedMs} ms`,
      );

      expect(await a.get(request.id)).toStrictEqual(request);
      await approveRace(a, b, request.id, 100);
      expect(await setup.node(newMaster).hget(key, 'status')).toBe('applying');
    }, 30_000);
  });
});
