import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CloudClient, type CloudClientOptions } from '../../src/cloud/client.js';
import { CloudApiError } from '../../src/core/service/api-error.js';
import { SendWindowClosedError } from '../../src/ports/service-directory.js';
import { CloudSimulator } from '../../src/simulator/server.js';
import { DEMO_IDS, DEMO_ORG_ID, demoServices, syntheticServices } from '../../src/simulator/seed.js';
import { collectGarbage } from '../support/memory.js';

const KEY_ID = 'clientTestKey';
const KEY_SECRET = 'client-test-secret-value';

let sim: CloudSimulator;
const clients: CloudClient[] = [];
const logLines: string[] = [];

function client(options: Partial<CloudClientOptions> = {}): CloudClient {
  const logger = { debug: log, info: log, warn: log, error: log };
  const c = new CloudClient({
    baseUrl: sim.url,
    keyId: KEY_ID,
    keySecret: KEY_SECRET,
    orgId: DEMO_ORG_ID,
    throttle: false,
    backoffBaseMs: 5,
    backoffMaxMs: 20,
    rateLimitPaddingMs: 0,
    logger,
    ...options,
  });
  clients.push(c);
  return c;
}
function log(...parts: unknown[]): void {
  logLines.push(parts.map(String).join(' '));
}

async function failure(promise: Promise<unknown>): Promise<CloudApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof CloudApiError)) throw new Error(`expected a CloudApiError, got ${String(error)}`);
  return error;
}

beforeEach(async () => {
  sim = await CloudSimulator.start({
    keyId: KEY_ID,
    keySecret: KEY_SECRET,
    orgId: DEMO_ORG_ID,
    services: demoServices(),
  });
  logLines.length = 0;
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await sim.close();
});

describe('listing services', () => {
  it('returns typed records with the requestId, keeping fields the brief does not list', async () => {
    const list = await client().listServices();
    expect(list.services).toHaveLength(12);
    expect(list.requestId).toMatch(/^[0-9a-f-]{36}$/);
    const orders = list.services.find((s) => s.id === DEMO_IDS.ordersProd);
    expect(orders?.name).toBe('orders-prod');
    expect(orders?.tier).toBe('production');
    expect((orders as Record<string, unknown>).complianceType).toBe('pci');
  });

  it('filters locally with AND of tag filters, reading the organization unfiltered', async () => {
    const list = await client().listServices(['tag:env=prod', 'tag:team=data']);
    expect(list.services.map((s) => s.name).sort()).toEqual(['billing-prod', 'orders-prod', 'orders-prod-readonly']);
    expect(sim.requests[0]?.query.getAll('filter')).toEqual([]);
  });

  it.each([
    [['tag:env=prod']],
    [['tag:env']],
    [['tag:env=prod', 'tag:team=data']],
    [['tag:team=data', 'tag:team=data']],
    [['tag:env=']],
    [['tag:nothing']],
    [['tag:env=prod', 'tag:env=staging']],
  ])('gives for %j exactly what the API gives for the same filters', async (filters) => {
    const local = await client().listServices(filters);
    const query = new URLSearchParams(filters.map((f) => ['filter', f])).toString();
    const response = await request(`${sim.url}/v1/organizations/${DEMO_ORG_ID}/services?${query}`, {
      headers: { authorization: `Basic ${Buffer.from(`${KEY_ID}:${KEY_SECRET}`).toString('base64')}` },
    });
    const remote = (await response.body.json()) as { result: Array<{ id: string }> };
    expect(local.services.map((s) => s.id).sort()).toEqual(remote.result.map((s) => s.id).sort());
  });

  it('keeps memory bounded while 1,000 distinct filter lists are listed against 1,000 services', async () => {
    const big = await CloudSimulator.start({
      keyId: KEY_ID,
      keySecret: KEY_SECRET,
      orgId: DEMO_ORG_ID,
      services: syntheticServices(1_000),
    });
    try {
      const c = client({ baseUrl: big.url, cacheSeconds: 600 });
      await c.listServices();
      collectGarbage();
      const before = process.memoryUsage().heapUsed;
      // 30 × 34 spellings of "tag:env tag:team", each matching all 1,000 services: cached per
      // spelling, that was about 1 MB each.
      const variant = (i: number) => [
        ...Array<string>((i % 30) + 1).fill('tag:env'),
        ...Array<string>(Math.floor(i / 30) + 1).fill('tag:team'),
      ];
      for (let i = 0; i < 1_000; i += 1) expect((await c.listServices(variant(i))).services).toHaveLength(1_000);
      collectGarbage();
      expect((process.memoryUsage().heapUsed - before) / 2 ** 20).toBeLessThan(16);
      expect(big.requests).toHaveLength(1);
    } finally {
      await big.close();
    }
  });

  it('reads the organization once for any number of distinct filter lists', async () => {
    const c = client({ cacheSeconds: 60 });
    const lists = Array.from({ length: 200 }, (_, i) => [`tag:env=v${i}`, 'tag:env']);
    await Promise.all(lists.map((filters) => c.listServices(filters)));
    for (const filters of lists) await c.listServices(filters);
    expect(sim.requests).toHaveLength(1);
  });

  it('refuses a malformed filter before sending it, since the API would ignore it silently', async () => {
    const error = await failure(client().listServices(['env=prod']));
    expect(error.kind).toBe('invalid-request');
    expect(error.message).toContain('tag:KEY');
    expect(sim.requests).toHaveLength(0);
  });

  it('coalesces concurrent identical reads into one request', async () => {
    const c = client({ cacheSeconds: 0 });
    const lists = await Promise.all(Array.from({ length: 50 }, () => c.listServices()));
    expect(new Set(lists.map((l) => l.requestId)).size).toBe(1);
    expect(sim.requests).toHaveLength(1);
  });

  it('reuses a read for the cache time, and reads again when the cache is off or a fresh read is asked', async () => {
    const cached = client({ cacheSeconds: 60 });
    await cached.listServices();
    await cached.listServices();
    expect(sim.requests).toHaveLength(1);
    await cached.listServices([], { fresh: true });
    expect(sim.requests).toHaveLength(2);
    const uncached = client({ cacheSeconds: 0 });
    await uncached.listServices();
    await uncached.listServices();
    expect(sim.requests).toHaveLength(4);
  });

  it('forgets the cached list after an update, so the next read shows the change', async () => {
    const c = client({ cacheSeconds: 60 });
    await c.listServices();
    await c.updateService(DEMO_IDS.mlDev, { name: 'ml renamed' });
    const after = await c.listServices();
    expect(after.services.find((s) => s.id === DEMO_IDS.mlDev)?.name).toBe('ml renamed');
    expect(sim.requests.map((r) => r.method)).toEqual(['GET', 'PATCH', 'GET']);
  });

  it('retries a read after 5xx and dropped connections, then succeeds', async () => {
    sim.faults.failNext(1, 503);
    sim.faults.dropNext(1);
    const list = await client().listServices();
    expect(list.services).toHaveLength(12);
    expect(sim.requests).toHaveLength(3);
  });

  it('gives up on a read after bounded retries with the last status and requestId', async () => {
    sim.faults.failNext(10, 500);
    const error = await failure(client({ readRetries: 2 }).listServices());
    expect(error.kind).toBe('http');
    expect(error.status).toBe(500);
    expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(sim.requests).toHaveLength(3);
  });

  it('waits out a 429 for X-RateLimit-Reset, then retries', async () => {
    sim.faults.rateLimitNext(1, 0.3);
    const started = Date.now();
    const list = await client().listServices();
    expect(list.services).toHaveLength(12);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(sim.requests).toHaveLength(2);
  });

  it('reports rate limiting when waiting would exceed the time budget', async () => {
    sim.faults.rateLimitNext(1, 30);
    const error = await failure(client({ rateLimitBudgetMs: 1_000 }).listServices());
    expect(error.kind).toBe('rate-limited');
    expect(error.status).toBe(429);
    expect(error.certainlyNotApplied).toBe(true);
  });

  it('times out a request that never answers, and retries it as a read', async () => {
    sim.faults.hangNext(1);
    const list = await client({ timeoutMs: 300 }).listServices();
    expect(list.services).toHaveLength(12);
    expect(sim.requests).toHaveLength(2);
  });

  it('tells a reader the budget is busy, with when to try again, instead of queueing without end', async () => {
    const c = client({ cacheSeconds: 0, throttle: { limit: 1, windowMs: 60_000, maxWaitMs: 50 } });
    await c.listServices([], { fresh: true, priority: 'command', person: 'U1' });
    const error = await failure(c.listServices([], { priority: 'command', person: 'U2' }));
    expect(error.kind).toBe('busy');
    expect(error.details.retryAfterMs).toBeGreaterThan(50_000);
    expect(error.certainlyNotApplied).toBe(true);
    expect(sim.requests).toHaveLength(1);
  });

  it("lends a person's priority to the background list read they join, so it goes before other background reads", async () => {
    const c = client({ cacheSeconds: 0, throttle: { limit: 1, windowMs: 200, maxWaitMs: 10_000 } });
    const day = { from: Date.now() - 86_400_000, to: Date.now() };
    const drift = ['drift', 'alerts'].map((person) => c.listActivities(day, { person }));
    const scheduled = c.listServices([], { person: 'summaries' });
    const asked = c.listServices([], { person: 'U1', priority: 'command' });
    await Promise.all([...drift, scheduled, asked]);
    expect(await asked).toBe(await scheduled);
    expect(sim.requests.map((r) => r.path.split('/').at(-1))).toStrictEqual(['activities', 'services', 'activities']);
  });

  it('throttles itself to the API limit instead of collecting 429s', async () => {
    const c = client({ throttle: { limit: 2, windowMs: 400 } });
    const started = Date.now();
    for (let i = 0; i < 3; i += 1) await c.listServices([], { fresh: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(380);
    expect(sim.requests).toHaveLength(3);
  });
});

describe('reading one service', () => {
  it('reads fresh with GET /services/{id}: one record, never from the cache', async () => {
    const c = client();
    const listed = (await c.listServices()).services.find((s) => s.id === DEMO_IDS.ordersProd);
    sim.changeOutsideBot(DEMO_IDS.ordersProd, { name: 'orders-renamed' });
    sim.resetRequests();
    expect(await c.getService(DEMO_IDS.ordersProd, { fresh: true })).toEqual({ ...listed, name: 'orders-renamed' });
    expect(sim.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /v1/organizations/${DEMO_ORG_ID}/services/${DEMO_IDS.ordersProd}`,
    ]);
  });

  it('serves a read that need not be fresh from the cached list, without a request', async () => {
    const c = client();
    await c.listServices();
    sim.resetRequests();
    expect((await c.getService(DEMO_IDS.mlDev))?.name).toBe('ml-dev');
    expect(sim.requests).toHaveLength(0);
  });

  it('answers undefined for an unknown service, and retries a fresh read after a 5xx', async () => {
    const c = client();
    expect(await c.getService('0b7c1e52-93d4-4a8e-b1f0-6c2d9e8a7f31', { fresh: true })).toBeUndefined();
    sim.faults.failNext(1, 503, { on: 'GET' });
    expect((await c.getService(DEMO_IDS.mlDev, { fresh: true }))?.id).toBe(DEMO_IDS.mlDev);
    expect(sim.requests.filter((r) => r.path.endsWith(DEMO_IDS.mlDev))).toHaveLength(2);
  });
});

describe('updating a service', () => {
  it('sends the PATCH body and returns the updated record', async () => {
    const result = await client().updateService(DEMO_IDS.ordersProd, {
      ipAccessList: { add: [{ source: '192.0.2.0/24', description: 'new office' }] },
    });
    expect(result.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.service.ipAccessList).toContainEqual({ source: '192.0.2.0/24', description: 'new office' });
    expect(sim.requests[0]?.body).toEqual({
      ipAccessList: { add: [{ source: '192.0.2.0/24', description: 'new office' }] },
    });
  });

  it('refuses a body that breaks the API rules without sending it', async () => {
    const c = client();
    const tooLong = await failure(c.updateService(DEMO_IDS.ordersProd, { name: 'x'.repeat(51) }));
    const badCidr = await failure(
      c.updateService(DEMO_IDS.ordersProd, { ipAccessList: { add: [{ source: '10.0.0.0/33' }] } }),
    );
    expect([tooLong.kind, badCidr.kind]).toEqual(['invalid-request', 'invalid-request']);
    expect(sim.requests).toHaveLength(0);
  });

  it("turns the API's 400 envelope into a typed error with its message and requestId", async () => {
    const error = await failure(client().updateService(DEMO_IDS.analyticsStaging, { releaseChannel: 'fast' }));
    expect(error.kind).toBe('http');
    expect(error.status).toBe(400);
    expect(error.details.apiMessage).toMatch(/^BAD_REQUEST: .*production/);
    expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(error.certainlyNotApplied).toBe(true);
  });

  it('answers 401 for a wrong key and 404 for an unknown service', async () => {
    const wrongKey = await failure(client({ keySecret: 'wrong-secret-value' }).listServices());
    expect(wrongKey.status).toBe(401);
    const unknown = await failure(client().updateService('0b7c1e52-93d4-4a8e-b1f0-6c2d9e8a7f31', { name: 'x' }));
    expect(unknown.status).toBe(404);
  });

  it('never retries a PATCH after a 5xx or a dropped connection: the outcome is unknown', async () => {
    const c = client();
    sim.faults.failNext(1, 500, { on: 'PATCH' });
    const server = await failure(c.updateService(DEMO_IDS.mlDev, { name: 'ml one' }));
    expect(server.certainlyNotApplied).toBe(false);
    sim.faults.dropNext(1, { on: 'PATCH' });
    const dropped = await failure(c.updateService(DEMO_IDS.mlDev, { name: 'ml two' }));
    expect(dropped.kind).toBe('network');
    expect(sim.requests.filter((r) => r.method === 'PATCH')).toHaveLength(2);
  });

  it('does retry a PATCH refused with 429, which the API did not act on', async () => {
    sim.faults.rateLimitNext(1, 0.05, { on: 'PATCH' });
    const result = await client().updateService(DEMO_IDS.mlDev, { name: 'ml three' });
    expect(result.service.name).toBe('ml three');
    expect(sim.requests.filter((r) => r.method === 'PATCH')).toHaveLength(2);
  });
});

describe('the last check before an update goes on the wire (beforeSend)', () => {
  it('runs after the throttle wait and again before each 429 retry, and nothing is sent when it throws', async () => {
    const c = client({ throttle: { limit: 1, windowMs: 1_500 } });
    await c.listServices([], { fresh: true }); // uses the only slot: the update must wait for the next
    const checks: number[] = [];
    sim.faults.rateLimitNext(1, 0.05, { on: 'PATCH' });
    const beforeSend = () => {
      checks.push(sim.requests.filter((r) => r.method === 'PATCH').length);
      return Promise.resolve(undefined);
    };
    const update = c.updateService(DEMO_IDS.mlDev, { name: 'ml checked' }, { beforeSend });
    await new Promise((resolve) => setImmediate(resolve));
    expect(checks).toEqual([]); // still waiting for the throttle, not yet checked
    await update;
    expect(checks).toEqual([0, 1]); // once before the 429, once before the retry

    const lost = new Error('lease lost');
    const refused = await c
      .updateService(DEMO_IDS.mlDev, { name: 'ml never' }, { beforeSend: () => Promise.reject(lost) })
      .catch((error: unknown) => error);
    expect(refused).toBe(lost);
    expect(sim.requests.filter((r) => r.method === 'PATCH')).toHaveLength(2);
    expect(sim.service(DEMO_IDS.mlDev)?.name).toBe('ml checked');
  });

  it('sends nothing once the time it answered has passed (a process held up after the check)', async () => {
    const c = client();
    const error = await c
      .updateService(DEMO_IDS.mlDev, { name: 'ml late' }, { beforeSend: () => Promise.resolve(Date.now() - 1) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SendWindowClosedError);
    expect(sim.requests.filter((r) => r.method === 'PATCH')).toHaveLength(0);
    const sent = await c.updateService(
      DEMO_IDS.mlDev,
      { name: 'ml in time' },
      { beforeSend: () => Promise.resolve(Date.now() + 5_000) },
    );
    expect(sent.service.name).toBe('ml in time');
  });
});

describe('on the wire', () => {
  it('takes a success envelope without status or requestId as a success, as official clients do', async () => {
    const record = { id: DEMO_IDS.ordersProd, name: 'orders-prod' };
    const server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const result = req.url?.endsWith('/services') ? [record] : record;
      res.end(JSON.stringify({ result }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const c = client({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
      const list = await c.listServices();
      expect(list.services.map((s) => s.name)).toEqual(['orders-prod']);
      expect(list.requestId).toBe('');
      expect((await c.getService(record.id, { fresh: true }))?.name).toBe('orders-prod');
      expect((await c.updateService(record.id, { name: 'orders' })).service.id).toBe(record.id);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('sends Basic auth and a User-Agent naming the bot, and logs neither the secret nor the header', async () => {
    const seen: Array<Record<string, string | string[] | undefined>> = [];
    const server = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ status: 500, error: 'INTERNAL_ERROR', requestId: '00000000-0000-4000-8000-000000000000' }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const c = client({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, readRetries: 1 });
      await failure(c.listServices());
      expect(seen[0]?.authorization).toBe(`Basic ${Buffer.from(`${KEY_ID}:${KEY_SECRET}`).toString('base64')}`);
      expect(seen[0]?.['user-agent']).toMatch(/^clickhouse-slack-bot\/\d+\.\d+\.\d+/);
      expect(logLines.length).toBeGreaterThan(0);
      const logs = logLines.join('\n');
      expect(logs).not.toContain(KEY_SECRET);
      expect(logs).not.toContain(Buffer.from(`${KEY_ID}:${KEY_SECRET}`).toString('base64'));
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
