import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import type { CloudSimulator } from '../../src/simulator/server.js';
import { call, expectError, expectSuccess, listPath, patch, servicePath, startDemo, UUID_V4 } from './helpers.js';
import { stringMatching } from '../support/matchers.js';

let sim: CloudSimulator;
let clock: number;
beforeEach(async () => {
  clock = 1_700_000_000_000;
  // A fake clock, so crossing a rate-limit window needs no waiting.
  sim = await startDemo({ now: () => clock });
});
afterEach(async () => {
  await sim.close();
});

const list = (): ReturnType<typeof call> => call(sim, 'GET', listPath());
const rename = (name: string): ReturnType<typeof patch> => patch(sim, DEMO_IDS.sandboxDev, { name });
const sandboxName = (): string | undefined => sim.service(DEMO_IDS.sandboxDev)?.name;

describe('latencyMs', () => {
  it('delays every response by at least the latency', async () => {
    sim.faults.latencyMs = 120;
    const started = performance.now();
    expectSuccess(await list());
    expect(performance.now() - started).toBeGreaterThanOrEqual(115);
  });

  it('lets close() finish at once while a delayed response is pending', async () => {
    sim.faults.latencyMs = 60_000;
    const pending = list();
    await sim.waitForRequests(1);
    await sim.close();
    await expect(pending).rejects.toThrow();
  });
});

describe('failNext', () => {
  it('answers the next N requests with 500 INTERNAL_ERROR by default, then recovers', async () => {
    sim.faults.failNext(2);
    expectError(await list(), 500, 'INTERNAL_ERROR');
    expectError(await list(), 500, 'INTERNAL_ERROR');
    expectSuccess(await list());
  });

  it('uses the status given, with the matching code', async () => {
    sim.faults.failNext(1, 503);
    expectError(await list(), 503, 'SERVICE_UNAVAILABLE');
  });

  it('with on: PATCH, lets reads through and fails the write without applying it', async () => {
    sim.faults.failNext(1, 500, { on: 'PATCH' });
    expectSuccess(await list());
    expectError(await rename('renamed'), 500, 'INTERNAL_ERROR');
    expect(sandboxName()).toBe('sandbox-dev');
    expect(sim.faults.pending).toBe(0);
  });

  it('with afterApply, applies the write and still answers 500', async () => {
    sim.faults.failNext(1, 500, { on: 'PATCH', afterApply: true });
    expectError(await rename('renamed'), 500, 'INTERNAL_ERROR');
    expect(sandboxName()).toBe('renamed');
  });

  it('refuses a status that is not an error, so a test cannot silently inject nothing', () => {
    expect(() => sim.faults.failNext(1, 200)).toThrow(RangeError);
    expect(() => sim.faults.failNext(0)).toThrow(RangeError);
  });
});

describe('rateLimitNext', () => {
  it('answers 429 TOO_MANY_REQUESTS with X-RateLimit-Reset in float seconds', async () => {
    sim.faults.rateLimitNext(1, 2.5);
    const limited = await list();
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      status: 429,
      error: 'TOO_MANY_REQUESTS',
      requestId: stringMatching(UUID_V4),
    });
    expect(limited.headers.get('x-ratelimit-reset')).toBe('2.500');
    expect(limited.headers.get('retry-after')).toBeNull();
    expectSuccess(await list());
  });

  it('can add a Retry-After header and target one method', async () => {
    sim.faults.rateLimitNext(1, 0.5, { on: 'PATCH', retryAfterSeconds: 1.2 });
    expectSuccess(await list());
    const limited = await rename('renamed');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(sandboxName()).toBe('sandbox-dev');
  });
});

describe('dropNext', () => {
  it('destroys the socket without an answer and without applying the write', async () => {
    sim.faults.dropNext(1, { on: 'PATCH' });
    await expect(rename('renamed')).rejects.toThrow();
    expect(sandboxName()).toBe('sandbox-dev');
    expectSuccess(await rename('renamed'));
  });

  it('with afterApply, applies the write and then drops the answer', async () => {
    sim.faults.dropNext(1, { afterApply: true });
    await expect(rename('renamed')).rejects.toThrow();
    expect(sandboxName()).toBe('renamed');
  });
});

describe('hangNext', () => {
  it('never answers the hanging request while others are served, until close', async () => {
    sim.faults.hangNext(1);
    let settled = false;
    const hanging = list().finally(() => {
      settled = true;
    });
    await sim.waitForRequests(1);
    expectSuccess(await list());
    expect(settled).toBe(false);
    await sim.close();
    await expect(hanging).rejects.toThrow();
  });
});

describe('fault queue', () => {
  it('applies armed faults in the order they were armed', async () => {
    sim.faults.failNext(1, 502);
    sim.faults.rateLimitNext(1, 1);
    expectError(await list(), 502, 'BAD_GATEWAY');
    expect((await list()).status).toBe(429);
    expectSuccess(await list());
  });

  it('reset() disarms everything', async () => {
    sim.faults.failNext(5);
    sim.faults.latencyMs = 60_000;
    sim.faults.enforceRateLimit = { limit: 1, windowMs: 10_000 };
    sim.faults.reset();
    expect(sim.faults.pending).toBe(0);
    expectSuccess(await list());
    expectSuccess(await list());
  });
});

describe('enforceRateLimit', () => {
  it('is off by default: 30 quick requests all succeed', async () => {
    const responses = await Promise.all(Array.from({ length: 30 }, () => list()));
    expect(responses.map((response) => response.status)).toEqual(Array(30).fill(200));
  });

  it('allows 10 requests per 10 s window, then 429 until the oldest one leaves the window', async () => {
    sim.faults.enforceRateLimit = { limit: 10, windowMs: 10_000 };
    for (let i = 0; i < 10; i += 1) {
      expectSuccess(await list());
      clock += 100;
    }
    const limited = await call(sim, 'PATCH', servicePath(DEMO_IDS.sandboxDev), { body: { name: 'renamed' } });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('x-ratelimit-reset'))).toBeCloseTo(9, 3);
    expect(sandboxName()).toBe('sandbox-dev');
    clock += 9_000;
    expectSuccess(await list());
    expect((await list()).status).toBe(429);
  });

  it('does not count requests with a wrong key against the real key', async () => {
    sim.faults.enforceRateLimit = { limit: 2, windowMs: 10_000 };
    for (let i = 0; i < 5; i += 1) expectError(await call(sim, 'GET', listPath(), { auth: null }), 401, 'UNAUTHORIZED');
    expectSuccess(await list());
    expectSuccess(await list());
    expect((await list()).status).toBe(429);
  });
});
