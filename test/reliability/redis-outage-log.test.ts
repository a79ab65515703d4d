/**
 * What the log says while Redis is down (issue 22): the README promises one sentence, then one a
 * minute, with how to run without Redis. It repeated ioredis's raw text every few seconds from
 * the connection, the reconciler and the revert loop. The production path: the bot as a child
 * process configured by REDIS_URL only, against a redis-server of the test's own (free port).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { CloudSimulator } from '../../src/simulator/server.js';
import { DEMO_ORG_ID, demoServices } from '../../src/simulator/seed.js';
import { FakeSlack } from '../e2e/fake-slack.js';
import { KEY_ID, KEY_SECRET } from '../e2e/harness.js';
import { startChildBot, startRedisServer } from './processes.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('while Redis is down', () => {
  it('the log says so once, in a sentence with how to run without Redis, and again when it is back', async () => {
    const redis = await startRedisServer();
    cleanups.push(() => redis.stop());
    const simulator = await CloudSimulator.start({
      keyId: KEY_ID,
      keySecret: KEY_SECRET,
      orgId: DEMO_ORG_ID,
      services: demoServices(),
    });
    cleanups.push(() => simulator.close());
    const slack = await FakeSlack.start();
    cleanups.push(() => slack.close());
    // A 1 s lease: the reconciler and the revert loop look every 250 ms, so a few seconds of
    // outage give each of them a dozen failures to repeat.
    const bot = await startChildBot({ simulator, slack, redisUrl: redis.url, env: { APPROVAL_LEASE_SECONDS: '1' } });
    cleanups.push(() => bot.kill());
    await bot.printed(/bot listening/);
    const before = bot.output.join('').length;

    await redis.kill();
    await bot.printed(/is not answering/);
    // Time for the loops to fail again and again; nothing to await, the point is that nothing comes.
    await sleep(3_000);
    await redis.restart();
    await bot.printed(/answers again/);

    const lines = bot.output.join('').slice(before).split('\n').filter(Boolean);
    const complaints = lines.filter((line) => / (WARN|ERROR) /.test(line));
    expect(complaints, complaints.join('\n')).toHaveLength(1);
    expect(complaints[0]).toContain(`Redis at 127.0.0.1:${redis.port} is not answering`);
    expect(complaints[0]).toContain('leave REDIS_URL unset');
    expect(complaints[0]).toContain('once a minute');
    expect(lines.join('\n')).not.toMatch(/ECONNREFUSED|maxRetriesPerRequest|max retries per request/);
  });
});
