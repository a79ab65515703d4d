/**
 * Exactness under races, pauses and crashes (issue: leases on approvals, one change at a time per
 * service). Two replicas share one Redis, one simulator and one Slack stand-in, as in production;
 * a replica that must be frozen or killed runs as a real child process.
 * - A slow live approval is never settled under its owner's feet by the other replica.
 * - Two approvals of one service are serialised: the second re-reads after the first and is
 *   refused as stale when a field it touches changed.
 * - A replica paused past its lease sends nothing after it resumes; another settles the request once.
 * - A replica killed mid-apply is settled by the other live replica within a lease, once.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import type { ChangeRequest } from '../../src/core/change/types.js';
import { CloudSimulator, type RecordedRequest } from '../../src/simulator/server.js';
import { DEMO_IDS, DEMO_ORG_ID, demoServices } from '../../src/simulator/seed.js';
import { DEFAULT_KEY_PREFIX, RedisChangeStore } from '../../src/store/index.js';
import { FakeSlack } from '../e2e/fake-slack.js';
import {
  answerText,
  KEY_ID,
  KEY_SECRET,
  requestChange,
  slackSender,
  startHarness,
  textOf,
  USERS,
  type Harness,
} from '../e2e/harness.js';
import { startChildBot, startRedisServer, type ChildBot, type RedisServer } from './processes.js';

/** One-second leases: a replica that stops renewing loses its request within about 1.25 s. */
const LEASE_SECONDS = 1;
/** A short API timeout too: it bounds how long a settler waits for an update a dead replica sent. */
const SHORT_LEASE = { APPROVAL_LEASE_SECONDS: String(LEASE_SECONDS), CLICKHOUSE_TIMEOUT_SECONDS: '2' };

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
const replicas: Harness[] = [];
beforeEach(async () => {
  await redis.client().flushall();
  simulator = await CloudSimulator.start({
    keyId: KEY_ID,
    keySecret: KEY_SECRET,
    orgId: DEMO_ORG_ID,
    services: demoServices(),
  });
  slack = await FakeSlack.start();
  store = new RedisChangeStore(redis.url, { keyPrefix: DEFAULT_KEY_PREFIX });
});
afterEach(async () => {
  for (const child of children.splice(0)) await child.kill();
  while (replicas.length > 0) await replicas.pop()?.stop();
  await store.close();
  await simulator.close();
  await slack.close();
});

/** An in-process replica on the shared Redis (default key prefix, like a child process). */
async function replica(env: Record<string, string> = SHORT_LEASE): Promise<Harness> {
  const h = await startHarness({ simulator, slack, redisUrl: redis.url, keyPrefix: DEFAULT_KEY_PREFIX, env });
  replicas.push(h);
  return h;
}

async function childReplica(): Promise<ChildBot> {
  const bot = await startChildBot({ simulator, slack, redisUrl: redis.url, env: SHORT_LEASE });
  children.push(bot);
  return bot;
}

const patches = () => simulator.requests.filter((r) => r.method === 'PATCH');

/** The next request of this method the simulator receives. */
function nextRequest(method: 'GET' | 'PATCH'): Promise<RecordedRequest> {
  return new Promise((resolve) => {
    const onRequest = (r: RecordedRequest) => {
      if (r.method !== method) return;
      simulator.off('request', onRequest);
      resolve(r);
    };
    simulator.on('request', onRequest);
  });
}

/** chat.update calls showing this request with this outcome word. */
const outcomeUpdates = (id: string, word: string) =>
  slack.calls.filter(
    (c) => c.method === 'chat.update' && textOf(c.args.blocks).includes(id) && textOf(c.args.blocks).includes(word),
  );

/** The text of the last chat.update of this request's message: what the channel shows now. */
const lastUpdateOf = (id: string) =>
  textOf(
    slack.calls.filter((c) => c.method === 'chat.update' && textOf(c.args.blocks).includes(id)).at(-1)?.args.blocks,
  );

async function settled(id: string, timeoutMs = 20_000): Promise<ChangeRequest> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const request = await store.get(id);
    if (request && request.status !== 'pending' && request.status !== 'applying') return request;
    if (Date.now() > deadline) throw new Error(`${id} still ${request?.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a live approval slower than its lease', () => {
  it('is never settled by the other replica, which reconciles every quarter lease; its owner applies it once', async () => {
    // The default API timeout: each answer takes longer than a lease but not than the timeout.
    const a = await replica({ APPROVAL_LEASE_SECONDS: String(LEASE_SECONDS) });
    const b = await replica({ APPROVAL_LEASE_SECONDS: String(LEASE_SECONDS) });
    const { id } = await requestChange(a, 'ip add orders-prod 192.0.2.10/32 partner');
    // Every answer of the API now takes four leases: the fresh read, then the update.
    simulator.faults.latencyMs = 4 * LEASE_SECONDS * 1000;
    const click = await a.click(ACTION_APPROVE, id, USERS.approver);
    expect(click.status).toBe(200);
    const request = await settled(id, 30_000);
    expect(request.status).toBe('applied');
    expect(patches()).toHaveLength(1);
    expect(simulator.service(DEMO_IDS.ordersProd)?.ipAccessList?.map((e) => e.source)).toContain('192.0.2.10/32');
    // Replica B looked many times and never took it: one approval, one fence, no settling note.
    expect(b.logs.join('\n')).not.toMatch(/settled \d+ change request/);
    const trail = (await store.readAudit({ limit: 10 })).filter((e) => e.changeId === id);
    expect(trail.map((e) => [e.action, e.fence])).toEqual([
      ['applied', 1],
      ['approved', 1],
      ['requested', undefined],
    ]);
    expect(trail[0]?.apiRequestId).toBeTruthy();
    expect(trail[1]?.actorId).toBe(USERS.approver);
    await slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'));
    expect(outcomeUpdates(id, 'Applied')).toHaveLength(1);
  }, 40_000);
});

describe('two approvals of one service at the same moment, on two replicas', () => {
  beforeEach(() => {
    simulator.faults.latencyMs = 150;
  });

  it('applies the first rename and refuses the second as stale, naming the field', async () => {
    const a = await replica();
    const b = await replica();
    const first = await requestChange(a, 'rename orders-staging orders-staging-a');
    const second = await requestChange(b, 'rename orders-staging orders-staging-b');
    await Promise.all([
      a.click(ACTION_APPROVE, first.id, USERS.approver),
      b.click(ACTION_APPROVE, second.id, USERS.second),
    ]);
    const outcomes = await Promise.all([settled(first.id), settled(second.id)]);
    expect(outcomes.map((r) => r.status).sort()).toEqual(['applied', 'failed']);
    expect(patches()).toHaveLength(1);
    const winner = outcomes.find((r) => r.status === 'applied');
    const loser = outcomes.find((r) => r.status === 'failed');
    expect(simulator.service(DEMO_IDS.ordersStaging)?.name).toBe(winner?.plan.update.name);
    expect(loser?.outcome?.message).toContain('The service changed since this request was made (Name)');
    const loserTrail = (await store.readAudit({ limit: 20 })).filter((e) => e.changeId === loser?.id);
    expect(loserTrail[0]?.action).toBe('stale');
  }, 30_000);

  it('applies an IP removal and an IP addition of other entries both, one after the other (issue 35, item 13)', async () => {
    const a = await replica();
    const b = await replica();
    const remove = await requestChange(a, 'ip remove orders-prod 198.51.100.7');
    const add = await requestChange(b, 'ip add orders-prod 203.0.113.99 vendor');
    await Promise.all([
      a.click(ACTION_APPROVE, remove.id, USERS.approver),
      b.click(ACTION_APPROVE, add.id, USERS.second),
    ]);
    const outcomes = await Promise.all([settled(remove.id), settled(add.id)]);
    expect(outcomes.map((r) => r.status)).toEqual(['applied', 'applied']);
    expect(patches()).toHaveLength(2);
    const sources = simulator.service(DEMO_IDS.ordersProd)?.ipAccessList?.map((entry) => entry.source);
    expect(sources).toContain('203.0.113.99');
    expect(sources).not.toContain('198.51.100.7');
  }, 30_000);

  it('never applies two removals that together would empty the IP access list (a risk neither showed)', async () => {
    const a = await replica();
    const b = await replica();
    const sources = simulator.service(DEMO_IDS.ordersProd)?.ipAccessList?.map((entry) => entry.source) ?? [];
    simulator.changeOutsideBot(DEMO_IDS.ordersProd, {
      ipAccessList: sources.slice(0, 2).map((source) => ({ source, description: 'kept' })),
    });
    const [one = '', two = ''] = sources;
    const first = await requestChange(a, `ip remove orders-prod ${one}`);
    const second = await requestChange(b, `ip remove orders-prod ${two}`);
    await Promise.all([
      a.click(ACTION_APPROVE, first.id, USERS.approver),
      b.click(ACTION_APPROVE, second.id, USERS.second),
    ]);
    const outcomes = await Promise.all([settled(first.id), settled(second.id)]);
    expect(outcomes.map((r) => r.status).sort()).toEqual(['applied', 'failed']);
    expect(patches()).toHaveLength(1);
    expect(simulator.service(DEMO_IDS.ordersProd)?.ipAccessList).toHaveLength(1);
  }, 30_000);

  it('ends, for N requests on one service, as the successful ones applied one after the other', async () => {
    // No read cache: each trial restores the service behind the bots' backs.
    const a = await replica({ ...SHORT_LEASE, CLICKHOUSE_CACHE_SECONDS: '0' });
    const b = await replica({ ...SHORT_LEASE, CLICKHOUSE_CACHE_SECONDS: '0' });
    const original = simulator.service(DEMO_IDS.eventsStaging);
    if (!original) throw new Error('no events-staging in the demo organization');
    for (let trial = 0; trial < 3; trial++) {
      simulator.changeOutsideBot(DEMO_IDS.eventsStaging, original);
      simulator.faults.latencyMs = 30 + trial * 60;
      const asks = [
        'rename events-staging events-one',
        'rename events-staging events-two',
        'ip add events-staging 192.0.2.1/32 one',
        'ip add events-staging 192.0.2.2/32 two',
        'endpoint events-staging mysql on',
        'endpoint events-staging mysql on',
        'release-channel events-staging fast',
        'release-channel events-staging slow',
      ];
      const ids: string[] = [];
      for (const [i, ask] of asks.entries()) ids.push((await requestChange(i % 2 ? b : a, ask)).id);
      const before = patches().length;
      await Promise.all(
        ids.map((id, i) => (i % 2 ? a : b).click(ACTION_APPROVE, id, i % 3 ? USERS.approver : USERS.second)),
      );
      const outcomes = await Promise.all(ids.map((id) => settled(id)));
      const applied = outcomes.filter((r) => r.status === 'applied');
      // One request per field wins, but both IP additions land (other entries); each loser was refused as stale.
      expect(applied).toHaveLength(5);
      expect(patches().length - before).toBe(5);
      for (const refused of outcomes.filter((r) => r.status === 'failed')) {
        expect(refused.outcome?.message).toMatch(/^The service changed since this request was made/);
      }
      const service = simulator.service(DEMO_IDS.eventsStaging);
      const name = applied.find((r) => r.plan.update.name)?.plan.update.name;
      const channel = applied.find((r) => r.plan.update.releaseChannel)?.plan.update.releaseChannel;
      expect(service?.name).toBe(name);
      expect(service?.ipAccessList?.filter((e) => e.source.startsWith('192.0.2.')).map((e) => e.source)).toEqual(
        expect.arrayContaining(['192.0.2.1/32', '192.0.2.2/32']),
      );
      expect(service?.releaseChannel).toBe(channel);
      expect(service?.endpoints?.some((e) => e.protocol === 'mysql')).toBe(true);
    }
  }, 90_000);
});

describe('a replica paused (SIGSTOP) past its lease, then resumed', () => {
  it('sends nothing after it resumes; the other replica settles the request exactly once', async () => {
    const paused = await childReplica();
    const other = await replica();
    const send = slackSender(paused.url, slack);
    const after = slack.calls.length;
    const ack = await send.command('rename orders-staging orders-frozen');
    const posted = await slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes('Change request'), {
      after,
    });
    const id = /CR-[0-9A-F]{10}/.exec(textOf(posted.args.blocks))?.[0] ?? '';
    await slack.waitFor('response_url', (a) => a.responseUrlId === ack.responseUrlId);

    // Freeze the replica while its fresh read before the update is on the wire.
    simulator.faults.latencyMs = 300;
    const freshRead = nextRequest('GET');
    const click = await send.click(ACTION_APPROVE, id, USERS.approver);
    await freshRead;
    paused.signal('SIGSTOP');
    const request = await settled(id, 20_000);
    expect(request.status).toBe('failed');
    expect(request.outcome?.message).toContain('before sending it to ClickHouse Cloud, so nothing was changed');
    await slack.waitFor(
      'chat.update',
      (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Not applied'),
    );

    paused.signal('SIGCONT');
    // The resumed replica finds it no longer owns the request and tells the approver so.
    const told = await slack.waitFor('response_url', (a) => a.responseUrlId === click.responseUrlId, {
      timeoutMs: 15_000,
    });
    expect(textOf(told.args)).toContain('sent nothing to ClickHouse Cloud');
    expect(patches()).toHaveLength(0);
    expect(simulator.service(DEMO_IDS.ordersStaging)?.name).toBe('orders-staging');
    expect((await store.get(id))?.status).toBe('failed');
    expect(outcomeUpdates(id, 'Not applied')).toHaveLength(1);
    // The resumed replica's own "applying" refresh never has the last word.
    expect(lastUpdateOf(id)).toContain('Not applied');
    expect(other.logs.join('\n')).toMatch(/settled 1 change request/);
  }, 40_000);
});

describe('a replica killed (SIGKILL) mid-apply while another replica runs', () => {
  it.each([
    { when: 'after the update took effect', afterApply: true, status: 'applied', word: 'Applied' },
    { when: 'with the update lost', afterApply: false, status: 'failed', word: 'Not applied' },
  ] as const)(
    'is settled by the live replica within a lease, once, $when',
    async ({ afterApply, status, word }) => {
      const doomed = await childReplica();
      const live = await replica();
      const send = slackSender(doomed.url, slack);
      const after = slack.calls.length;
      const ack = await send.command('rename orders-staging orders-killed');
      const posted = await slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes('Change request'), {
        after,
      });
      const id = /CR-[0-9A-F]{10}/.exec(textOf(posted.args.blocks))?.[0] ?? '';
      await slack.waitFor('response_url', (a) => a.responseUrlId === ack.responseUrlId);

      simulator.faults.hangNext(1, { on: 'PATCH', afterApply });
      const patch = nextRequest('PATCH');
      await send.click(ACTION_APPROVE, id, USERS.approver);
      await patch;
      const killedAt = Date.now();
      doomed.signal('SIGKILL');
      await doomed.exited;

      const request = await settled(id, 60_000);
      expect(Date.now() - killedAt).toBeLessThan(60_000);
      expect(request.status).toBe(status);
      await slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes(word));
      expect(patches()).toHaveLength(1);
      if (afterApply)
        await slack.waitFor('chat.postMessage', (a) => String(a.text).startsWith(`Applied change ${id} `));
      // Told once: one outcome update, one resulting record, and the message ends on the outcome.
      expect(outcomeUpdates(id, word)).toHaveLength(1);
      const results = slack.calls.filter(
        (c) => c.method === 'chat.postMessage' && String(c.args.text).startsWith(`Applied change ${id} `),
      );
      expect(results).toHaveLength(afterApply ? 1 : 0);
      expect(lastUpdateOf(id)).toContain(word);
      expect(await answerText(live, await live.click(ACTION_APPROVE, id, USERS.second))).toContain('already settled');
      expect(await store.listApplying()).toHaveLength(0);
    },
    60_000,
  );
});

describe('a replica killed after sending, while another approval of the same service waits', () => {
  it('is settled from the service first (the sent update counts), and the waiting approval goes on after it', async () => {
    const doomed = await childReplica();
    const live = await replica();
    const send = slackSender(doomed.url, slack);
    const after = slack.calls.length;
    const ack = await send.command('ip add orders-staging 0.0.0.0/0 partner load test');
    const posted = await slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes('Change request'), {
      after,
    });
    const sent = /CR-[0-9A-F]{10}/.exec(textOf(posted.args.blocks))?.[0] ?? '';
    await slack.waitFor('response_url', (a) => a.responseUrlId === ack.responseUrlId);
    const waiting = await requestChange(live, 'rename orders-staging orders-after-crash');

    simulator.faults.hangNext(1, { on: 'PATCH', afterApply: true });
    const patch = nextRequest('PATCH');
    // What the store says of the dead replica's request when the waiting approval's PATCH arrives.
    const firstWhenSecondSent = new Promise<string | undefined>((resolve) => {
      simulator.on('request', (r) => {
        if (r.method === 'PATCH' && JSON.stringify(r.body).includes('orders-after-crash'))
          void store.get(sent).then((x) => resolve(x?.status));
      });
    });
    await send.click(ACTION_APPROVE, sent, USERS.approver);
    await patch;
    doomed.signal('SIGKILL');
    await doomed.exited;
    // Approved while the dead replica's update is unresolved: it must wait, not read and PATCH.
    await live.click(ACTION_APPROVE, waiting.id, USERS.second);

    const first = await settled(sent, 30_000);
    expect(first.status).toBe('applied');
    expect(first.outcome?.message).toContain('which shows it');
    const second = await settled(waiting.id, 30_000);
    expect(second.status).toBe('applied');
    const sentPatches = patches();
    expect(sentPatches).toHaveLength(2);
    expect(sentPatches[1]?.body).toEqual({ name: 'orders-after-crash' });
    const service = simulator.service(DEMO_IDS.ordersStaging);
    expect(service?.name).toBe('orders-after-crash');
    expect(service?.ipAccessList?.map((e) => e.source)).toContain('0.0.0.0/0');
    // The waiting approval's PATCH went out only after the dead one was settled.
    expect(await firstWhenSecondSent).toBe('applied');
  }, 60_000);
});
