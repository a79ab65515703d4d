import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_IDS, DEMO_KEY_ID, DEMO_KEY_SECRET } from '../../src/simulator/seed.js';
import type { CloudSimulator } from '../../src/simulator/server.js';
import type { ServiceRecordLike } from '../../src/simulator/state.js';
import {
  basicAuth,
  call,
  expectError,
  expectSuccess,
  listPath,
  servicePath,
  startDemo,
  type SuccessEnvelope,
} from './helpers.js';

let sim: CloudSimulator;
beforeEach(async () => {
  sim = await startDemo();
});
afterEach(async () => {
  await sim.close();
});

describe('envelopes', () => {
  it('wraps the list in {status: 200, requestId, result} with a fresh request id each time', async () => {
    const first = await call(sim, 'GET', listPath());
    const second = await call(sim, 'GET', listPath());
    expect(expectSuccess<ServiceRecordLike[]>(first)).toHaveLength(12);
    expect(Object.keys(first.body as object).sort()).toEqual(['requestId', 'result', 'status']);
    expect((first.body as SuccessEnvelope<unknown>).requestId).not.toBe(
      (second.body as SuccessEnvelope<unknown>).requestId,
    );
  });

  it('serves on 127.0.0.1 at a free port when asked for port 0', () => {
    expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sim.url.endsWith(':0')).toBe(false);
  });
});

describe('authentication', () => {
  it('refuses a request without credentials with 401 and no data', async () => {
    const response = await call(sim, 'GET', listPath(), { auth: null });
    expectError(response, 401, 'UNAUTHORIZED');
    expect(response.body).not.toHaveProperty('result');
  });

  it('refuses a wrong secret and a wrong key id', async () => {
    expectError(await call(sim, 'GET', listPath(), { auth: basicAuth(DEMO_KEY_ID, 'wrong') }), 401, 'UNAUTHORIZED');
    expectError(await call(sim, 'GET', listPath(), { auth: basicAuth('other', DEMO_KEY_SECRET) }), 401, 'UNAUTHORIZED');
    expectError(await call(sim, 'GET', listPath(), { auth: 'Bearer token' }), 401, 'UNAUTHORIZED');
  });

  it('refuses an unauthenticated PATCH without changing the service', async () => {
    const response = await call(sim, 'PATCH', servicePath(DEMO_IDS.ordersProd), {
      auth: null,
      body: { name: 'pwned' },
    });
    expectError(response, 401, 'UNAUTHORIZED');
    expect(sim.service(DEMO_IDS.ordersProd)?.name).toBe('orders-prod');
  });
});

describe('routes', () => {
  it('answers 404 for an unknown organization, on list and update', async () => {
    const otherOrg = '99999999-9999-4999-8999-999999999999';
    const listed = await call(sim, 'GET', listPath(otherOrg));
    expect(expectError(listed, 404, 'NOT_FOUND')).toContain(otherOrg);
    const patched = await call(sim, 'PATCH', servicePath(DEMO_IDS.ordersProd, otherOrg), { body: { name: 'x' } });
    expectError(patched, 404, 'NOT_FOUND');
    expect(sim.service(DEMO_IDS.ordersProd)?.name).toBe('orders-prod');
  });

  it('answers 404 for an unknown service', async () => {
    const unknown = '0b7c1e52-93d4-4a8e-b1f0-6c2d9e8a7f31';
    const response = await call(sim, 'PATCH', servicePath(unknown), { body: { name: 'x' } });
    expect(expectError(response, 404, 'NOT_FOUND')).toContain(unknown);
  });

  it('answers 404 with the envelope for paths outside the simulated operations', async () => {
    expectError(await call(sim, 'GET', '/v1/organizations'), 404, 'NOT_FOUND');
    expectError(await call(sim, 'GET', `${listPath()}/${DEMO_IDS.ordersProd}/backupBucket`), 404, 'NOT_FOUND');
    expectError(await call(sim, 'GET', `${listPath()}/${DEMO_IDS.ordersProd}/backups/x/y`), 404, 'NOT_FOUND');
    expectError(await call(sim, 'PATCH', `${listPath()}/${DEMO_IDS.ordersProd}/scaling`), 404, 'NOT_FOUND');
    expectError(await call(sim, 'GET', '/'), 404, 'NOT_FOUND');
  });

  it('answers 405 naming PATCH for a read of …/state or …/replicaScaling', async () => {
    for (const action of ['state', 'replicaScaling']) {
      const response = await call(sim, 'GET', `${listPath()}/${DEMO_IDS.ordersProd}/${action}`);
      expectError(response, 405, 'METHOD_NOT_ALLOWED');
      expect(response.headers.get('allow')).toBe('PATCH');
    }
  });

  it('answers 405 and names the allowed method when the method is wrong', async () => {
    const posted = await call(sim, 'POST', `${servicePath(DEMO_IDS.ordersProd)}/backups`, { body: {} });
    expectError(posted, 405, 'METHOD_NOT_ALLOWED');
    expect(posted.headers.get('allow')).toBe('GET');
    const deleted = await call(sim, 'DELETE', `${servicePath(DEMO_IDS.ordersProd)}/backupConfiguration`);
    expectError(deleted, 405, 'METHOD_NOT_ALLOWED');
    expect(deleted.headers.get('allow')).toBe('GET, PATCH');
    expect(sim.services()).toHaveLength(12);
  });

  it('answers GET of one service with the same record the list holds', async () => {
    const listed = expectSuccess<ServiceRecordLike[]>(await call(sim, 'GET', listPath()));
    const one = expectSuccess<ServiceRecordLike>(await call(sim, 'GET', servicePath(DEMO_IDS.ordersProd)));
    expect(one).toEqual(listed.find((service) => service.id === DEMO_IDS.ordersProd));
  });

  it('answers GET of an unknown service or organization with 404', async () => {
    const unknown = '0b7c1e52-93d4-4a8e-b1f0-6c2d9e8a7f31';
    expect(expectError(await call(sim, 'GET', servicePath(unknown)), 404, 'NOT_FOUND')).toContain(unknown);
    const otherOrg = '99999999-9999-4999-8999-999999999999';
    expectError(await call(sim, 'GET', servicePath(DEMO_IDS.ordersProd, otherOrg)), 404, 'NOT_FOUND');
  });

  it('answers 400 to a body that is not JSON', async () => {
    const response = await call(sim, 'PATCH', servicePath(DEMO_IDS.ordersProd), { rawBody: '{"name": "oops"' });
    expect(expectError(response, 400, 'BAD_REQUEST')).toContain('not valid JSON');
  });
});

describe('request log', () => {
  it('records method, path, filters and body, but never the credentials', async () => {
    const query = new URLSearchParams([
      ['filter', 'tag:env=prod'],
      ['filter', 'tag:team=data'],
    ]);
    await call(sim, 'GET', listPath(), { query });
    await call(sim, 'PATCH', servicePath(DEMO_IDS.ordersProd), { body: { name: 'orders' } });
    const [listed, patched] = sim.requests;
    expect(listed?.method).toBe('GET');
    expect(listed?.path).toBe(listPath());
    expect(listed?.query.getAll('filter')).toEqual(['tag:env=prod', 'tag:team=data']);
    expect(patched?.body).toEqual({ name: 'orders' });
    const logged = JSON.stringify(sim.requests);
    expect(logged).not.toContain(DEMO_KEY_SECRET);
    expect(logged).not.toContain(Buffer.from(`${DEMO_KEY_ID}:${DEMO_KEY_SECRET}`).toString('base64'));
  });

  it('logs refused requests too, and starts over after resetRequests', async () => {
    await call(sim, 'GET', listPath(), { auth: null });
    expect(sim.requests).toHaveLength(1);
    sim.resetRequests();
    expect(sim.requests).toHaveLength(0);
  });

  it('lets a test await N requests without sleeping', async () => {
    const arrived = sim.waitForRequests(3);
    const seen: string[] = [];
    sim.on('request', (request) => seen.push(request.method));
    await Promise.all([
      call(sim, 'GET', listPath()),
      call(sim, 'GET', listPath()),
      call(sim, 'PATCH', servicePath(DEMO_IDS.sandboxDev), { body: { name: 'sandbox' } }),
    ]);
    expect(await arrived).toHaveLength(3);
    expect(seen.sort()).toEqual(['GET', 'GET', 'PATCH']);
  });
});

describe('close', () => {
  it('closes with a keep-alive connection open, and refuses connections afterwards', async () => {
    await call(sim, 'GET', listPath());
    await sim.close();
    await expect(fetch(`${sim.url}${listPath()}`)).rejects.toThrow();
  });
});
