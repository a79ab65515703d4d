/**
 * Redis going away in the middle of a flow. The test runs its own redis-server with the
 * persistence a deployment needs for "no pending request lost": an append-only file fsynced on
 * every write (appendonly yes, appendfsync always). Redis is killed with SIGKILL (no save on the
 * way out) and started again on the same port and directory.
 * While it is down, a command and a click get a clear sentence (no stack trace, no silence) and
 * /healthz answers 503; after it is back, /healthz answers 200, the pending request is still
 * there and is applied exactly once, and an approval cut off by the outage is settled.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { requestChange, startHarness, textOf, USERS, type Ack, type Harness } from '../e2e/harness.js';
import { startRedisServer, type RedisServer } from './processes.js';

let dir = '';
let redis: RedisServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chbot-redis-'));
  redis = await startRedisServer({ persistDir: dir });
});
afterAll(async () => {
  await redis.stop();
  await rm(dir, { recursive: true, force: true });
});

const running: Harness[] = [];
afterEach(async () => {
  while (running.length > 0) await running.pop()?.stop();
});

const answer = (h: Harness, ack: Ack, timeoutMs = 10_000) =>
  h.slack
    .waitFor('response_url', (a) => a.responseUrlId === ack.responseUrlId, { timeoutMs })
    .then((c) => textOf(c.args));

async function health(h: Harness): Promise<number> {
  const response = await request(`http://127.0.0.1:${h.bot.port}/healthz`);
  await response.body.dump();
  return response.statusCode;
}

/** /healthz until it answers `status`; the store reconnects on its own backoff (at most 2 s apart). */
async function healthBecomes(h: Harness, status: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = await health(h);
    if (now === status) return;
    if (Date.now() > deadline) throw new Error(`/healthz still answers ${now}, not ${status}, after ${timeoutMs} ms`);
    await sleep(100);
  }
}

async function requestRename(h: Harness, service: string, name: string) {
  return (await requestChange(h, `rename ${service} "${name}"`)).id;
}

const noStackTrace = (text: string) => expect(text).not.toMatch(/\n\s+at |Error:|ECONNREFUSED|MaxRetriesPerRequest/);

describe('Redis restarted in the middle of a flow', () => {
  it('answers clearly while Redis is down, and keeps the pending request for an exactly-once approval after', async () => {
    const h = await startHarness({ redisUrl: redis.url });
    running.push(h);
    const id = await requestRename(h, 'ml-dev', 'ml-after-restart');
    expect(await health(h)).toBe(200);

    await redis.kill();

    const pending = await h.command('pending');
    expect(pending.status).toBe(200);
    const pendingText = await answer(h, pending);
    expect(pendingText).toContain("The bot's store (Redis) is not answering, so nothing was read or changed.");
    noStackTrace(pendingText);

    const click = await h.click(ACTION_APPROVE, id, USERS.approver);
    expect(click.status).toBe(200);
    const clickText = await answer(h, click);
    expect(clickText).toContain('its store (Redis) did not answer');
    noStackTrace(clickText);

    expect(await health(h)).toBe(503);
    expect(h.simulator.requests.filter((r) => r.method === 'PATCH')).toHaveLength(0);

    await redis.restart();
    await healthBecomes(h, 200);

    const stored = await h.bot.changeStore.get(id);
    expect(stored?.status).toBe('pending');
    expect(stored?.plan.update).toEqual({ name: 'ml-after-restart' });
    expect(await answer(h, await h.command('pending'))).toContain(id);

    const clicks = await Promise.all([
      h.click(ACTION_APPROVE, id, USERS.approver),
      h.click(ACTION_APPROVE, id, USERS.second),
      h.click(ACTION_APPROVE, id, USERS.approver),
    ]);
    expect(clicks.map((c) => c.status)).toEqual([200, 200, 200]);
    await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'));
    expect(h.simulator.requests.filter((r) => r.method === 'PATCH')).toHaveLength(1);
    expect(h.simulator.service(DEMO_IDS.mlDev)?.name).toBe('ml-after-restart');
    expect((await h.bot.changeStore.get(id))?.status).toBe('applied');
    expect(await answer(h, await h.command('list'))).toContain('ml-after-restart');
  });

  it('settles an approval whose outcome could not be recorded because Redis went down while it ran', async () => {
    const h = await startHarness({
      redisUrl: redis.url,
      env: { APPROVAL_LEASE_SECONDS: '1', CLICKHOUSE_TIMEOUT_SECONDS: '2' },
    });
    running.push(h);
    const id = await requestRename(h, 'legacy-reporting', 'legacy-cut-off');

    // Hold the update's answer until Redis is gone, so the outcome cannot be recorded.
    h.simulator.faults.latencyMs = 0;
    const patched = new Promise<void>((resolve) =>
      h.simulator.on('request', (r) => {
        if (r.method !== 'PATCH') return;
        h.simulator.faults.latencyMs = 500;
        resolve();
      }),
    );
    const click = await h.click(ACTION_APPROVE, id, USERS.approver);
    await patched;
    await redis.kill();
    const told = await answer(h, click);
    expect(told).toContain('the bot checks the service and updates the request message once it can');
    noStackTrace(told);
    h.simulator.faults.latencyMs = 0;

    await redis.restart();
    await healthBecomes(h, 200);
    // Claimed and applied, but the outcome never reached Redis.
    expect(h.simulator.service(DEMO_IDS.legacyReporting)?.name).toBe('legacy-cut-off');

    // The periodic reconciliation takes the request over once its lease has run out.
    const update = await h.slack.waitFor(
      'chat.update',
      (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'),
    );
    expect(textOf(update.args.blocks)).toContain('checked against the service afterwards, which shows it');
    expect((await h.bot.changeStore.get(id))?.status).toBe('applied');
    expect(h.simulator.requests.filter((r) => r.method === 'PATCH')).toHaveLength(1);
  });
});
