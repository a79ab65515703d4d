/**
 * CloudClient's capacity and power calls (PATCH …/replicaScaling, PATCH …/state) against the
 * simulator over real HTTP: the same body checks, fencing, retry rules and error mapping as
 * updateService, and a stop followed to `stopped` within the throttle.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CloudClient, type CloudClientOptions } from '../../src/cloud/client.js';
import { CloudApiError } from '../../src/core/service/api-error.js';
import type { ReplicaScalingUpdate } from '../../src/core/service/schema.js';
import { SendWindowClosedError } from '../../src/ports/service-directory.js';
import { CloudSimulator, type SimulatorOptions } from '../../src/simulator/server.js';
import { DEMO_IDS, DEMO_ORG_ID, demoServices } from '../../src/simulator/seed.js';

const KEY_ID = 'capacityTestKey';
const KEY_SECRET = 'capacity-test-secret-value';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let sim: CloudSimulator;
const clients: CloudClient[] = [];
const logLines: string[] = [];

async function start(options: Partial<SimulatorOptions> = {}): Promise<CloudSimulator> {
  sim = await CloudSimulator.start({
    keyId: KEY_ID,
    keySecret: KEY_SECRET,
    orgId: DEMO_ORG_ID,
    services: demoServices(),
    transitionMs: 100,
    ...options,
  });
  return sim;
}

function client(options: Partial<CloudClientOptions> = {}): CloudClient {
  const log = (...parts: unknown[]) => void logLines.push(parts.map(String).join(' '));
  const c = new CloudClient({
    baseUrl: sim.url,
    keyId: KEY_ID,
    keySecret: KEY_SECRET,
    orgId: DEMO_ORG_ID,
    throttle: false,
    backoffBaseMs: 5,
    backoffMaxMs: 20,
    rateLimitPaddingMs: 0,
    logger: { debug: log, info: log, warn: log, error: log },
    ...options,
  });
  clients.push(c);
  return c;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
}

async function cloudFailure(promise: Promise<unknown>): Promise<CloudApiError> {
  const error = await failure(promise);
  if (!(error instanceof CloudApiError)) throw new Error(`expected a CloudApiError, got ${String(error)}`);
  return error;
}

const patches = () => sim.requests.filter((request) => request.method === 'PATCH');

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await sim.close();
  logLines.length = 0;
});

describe('scaleReplicas', () => {
  it('PATCHes …/replicaScaling with the body and returns the record after it', async () => {
    await start();
    const result = await client().scaleReplicas(DEMO_IDS.searchProd, { minReplicas: 3, maxReplicas: 9 });
    expect(result.requestId).toMatch(UUID);
    expect(result.service).toMatchObject({ minReplicas: 3, maxReplicas: 9, replicaMemoryGb: 16 });
    expect(patches()).toEqual([
      expect.objectContaining({
        path: `/v1/organizations/${DEMO_ORG_ID}/services/${DEMO_IDS.searchProd}/replicaScaling`,
        body: { minReplicas: 3, maxReplicas: 9 },
      }),
    ]);
  });

  it.each<[string, ReplicaScalingUpdate | Record<string, unknown>]>([
    ['25 replicas', { numReplicas: 25 }],
    ['a minimum without its maximum', { minReplicas: 2 }],
    ['a count and a range together', { numReplicas: 3, minReplicas: 3, maxReplicas: 3 }],
    ['10 GB per replica', { minReplicaMemoryGb: 10, maxReplicaMemoryGb: 10 }],
    ['a memory minimum above its maximum', { minReplicaMemoryGb: 64, maxReplicaMemoryGb: 32 }],
    ['a 3-minute idle timeout', { idleTimeoutMinutes: 3 }],
    ['the deprecated total-memory fields', { minTotalMemoryGb: 24 }],
  ])('refuses %s before sending anything', async (_, body) => {
    await start();
    const error = await cloudFailure(client().scaleReplicas(DEMO_IDS.ordersProd, body));
    expect(error.kind).toBe('invalid-request');
    expect(error.certainlyNotApplied).toBe(true);
    expect(error.message).toMatch(/^The change breaks the API's rules: /);
    expect(sim.requests).toHaveLength(0);
  });

  it("surfaces the API's 400 as a CloudApiError with its text and requestId", async () => {
    await start();
    const error = await cloudFailure(client().scaleReplicas(DEMO_IDS.ordersProd, { minReplicas: 2, maxReplicas: 6 }));
    expect(error.kind).toBe('http');
    expect(error.status).toBe(400);
    expect(error.details.apiMessage).toBe(
      'BAD_REQUEST: a replica range (minReplicas below maxReplicas) needs horizontal autoscaling',
    );
    expect(error.message).toBe(`ClickHouse Cloud API answered 400: ${error.details.apiMessage}`);
    expect(error.requestId).toMatch(UUID);
    expect(error.certainlyNotApplied).toBe(true);
  });

  it('makes the next list read fresh, so the change shows at once', async () => {
    await start();
    const c = client({ cacheSeconds: 600 });
    await c.listServices();
    await c.scaleReplicas(DEMO_IDS.ordersProd, { numReplicas: 6 });
    const listed = (await c.listServices()).services.find((service) => service.id === DEMO_IDS.ordersProd);
    expect(listed?.numReplicas).toBe(6);
    expect(sim.requests.filter((request) => request.method === 'GET')).toHaveLength(2);
  });
});

describe('changeState', () => {
  it('stops a service and follows it to stopped by fresh reads', async () => {
    await start({ transitionMs: 150 });
    const c = client();
    const answered = await c.changeState(DEMO_IDS.ordersProd, 'stop');
    expect(answered.service.state).toBe('stopping');
    expect(patches()[0]).toMatchObject({
      path: `/v1/organizations/${DEMO_ORG_ID}/services/${DEMO_IDS.ordersProd}/state`,
      body: { command: 'stop' },
    });
    const seen: Array<string | undefined> = [];
    for (let read = 0; read < 50; read += 1) {
      const state = (await c.getService(DEMO_IDS.ordersProd, { fresh: true }))?.state;
      if (seen.at(-1) !== state) seen.push(state);
      if (state === 'stopped') break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(seen).toEqual(['stopping', 'stopped']);
  });

  it("surfaces the API's 400 for a command that does not fit the state", async () => {
    await start();
    const error = await cloudFailure(client().changeState(DEMO_IDS.ordersStaging, 'stop'));
    expect(error).toMatchObject({ kind: 'http', status: 400, certainlyNotApplied: true });
    expect(error.details.apiMessage).toBe('BAD_REQUEST: cannot stop the service while it is stopped');
    expect(error.requestId).toMatch(UUID);
  });

  it('refuses a command the API does not know without sending it', async () => {
    await start();
    const error = await cloudFailure(client().changeState(DEMO_IDS.ordersProd, 'pause' as 'stop'));
    expect(error.kind).toBe('invalid-request');
    expect(sim.requests).toHaveLength(0);
  });

  it('is never retried after a 5xx (the outcome is unknown), but is after a 429', async () => {
    await start();
    const c = client();
    sim.faults.failNext(1, 502, { on: 'PATCH', afterApply: true });
    const lost = await cloudFailure(c.changeState(DEMO_IDS.ordersProd, 'stop'));
    expect(lost.certainlyNotApplied).toBe(false);
    expect(patches()).toHaveLength(1);
    expect(sim.service(DEMO_IDS.ordersProd)?.state).toBe('stopping'); // it did happen

    sim.faults.rateLimitNext(1, 0.05, { on: 'PATCH' });
    expect((await c.changeState(DEMO_IDS.ordersStaging, 'start')).service.state).toBe('starting');
    expect(patches()).toHaveLength(3);
  });

  it('runs beforeSend before sending: nothing leaves when it throws or its send window has closed', async () => {
    await start();
    const c = client();
    const lost = new Error('lease lost');
    expect(await failure(c.changeState(DEMO_IDS.ordersProd, 'stop', { beforeSend: () => Promise.reject(lost) }))).toBe(
      lost,
    );
    const late = await failure(
      c.scaleReplicas(DEMO_IDS.ordersProd, { numReplicas: 4 }, { beforeSend: () => Promise.resolve(Date.now() - 1) }),
    );
    expect(late).toBeInstanceOf(SendWindowClosedError);
    expect(patches()).toHaveLength(0);
    expect(sim.service(DEMO_IDS.ordersProd)).toMatchObject({ state: 'running', numReplicas: 3 });

    const checked: string[] = [];
    const beforeSend = () => {
      checked.push('checked');
      return Promise.resolve(Date.now() + 5_000);
    };
    await c.changeState(DEMO_IDS.ordersProd, 'stop', { beforeSend });
    await c.scaleReplicas(DEMO_IDS.searchProd, { minReplicas: 2, maxReplicas: 4 }, { beforeSend });
    expect(checked).toHaveLength(2);
    expect(patches()).toHaveLength(2);
  });
});

describe('following a stop within the rate limit', () => {
  it('never runs into a 429 while reading as fast as it may until the service has stopped', async () => {
    const windowMs = 1_000;
    await start({ transitionMs: 1_500 });
    // The API allows 4 per window; the client takes 3, a margin for requests that arrive late.
    sim.faults.enforceRateLimit = { limit: 4, windowMs };
    const c = client({ throttle: { limit: 3, windowMs, approvalReserve: 1 } });
    await c.changeState(DEMO_IDS.eventsProd, 'stop');
    let state: string | undefined;
    let reads = 0;
    const started = Date.now();
    // No pause between reads: only the client's throttle paces them.
    while (state !== 'stopped' && Date.now() - started < 10_000) {
      state = (await c.getService(DEMO_IDS.eventsProd, { fresh: true }))?.state;
      reads += 1;
    }
    expect(state).toBe('stopped');
    expect(logLines.filter((line) => line.includes('rate limit'))).toEqual([]);
    const times = sim.requests.map((request) => request.at);
    for (let i = 3; i < times.length; i += 1) {
      expect((times[i] ?? 0) - (times[i - 3] ?? 0)).toBeGreaterThanOrEqual(windowMs - 50);
    }
    // 1.5 s of transition at 3 requests a second: a handful of reads, not hundreds.
    expect(reads).toBeLessThanOrEqual(8);
    expect(sim.requests).toHaveLength(reads + 1);
  });
});
