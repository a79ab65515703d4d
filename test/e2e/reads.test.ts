/**
 * Reads cannot be used to starve or bloat the bot: any mix of filters costs one API read per
 * cache window and bounded memory, the API budget goes to approvals first and is shared fairly
 * between people, and a person past the budget's limit is told when to try again.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { DEMO_IDS, syntheticServices } from '../../src/simulator/seed.js';
import { collectGarbage } from '../support/memory.js';
import { answerText, requestChange, textOf, useHarnesses, USERS, type Harness } from './harness.js';

const harness = useHarnesses();

const listReads = (h: Harness) =>
  h.simulator.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/services'));

/** Runs `count` tasks with at most `width` at a time. */
async function inWaves<T>(count: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      results[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}

describe('reads', () => {
  it('answers 1,000 distinct filter lists against 1,000 services with one API read and bounded memory', async () => {
    const h = await harness({ services: syntheticServices(1_000), env: { CLICKHOUSE_CACHE_SECONDS: '600' } });
    expect(await answerText(h, await h.command('list tag:env'))).toContain('1000 services');
    collectGarbage();
    const before = process.memoryUsage().heapUsed;

    // Distinct lists, each with its own answer; small answers, so the fake Slack's record of them stays small.
    const answers = await inWaves(1_000, 20, async (i) =>
      answerText(h, await h.command(`list tag:env tag:team tag:owner=n${i}`, USERS.outsider)),
    );
    expect(answers.every((a) => a.includes('No service has these tags'))).toBe(true);
    collectGarbage();
    expect((process.memoryUsage().heapUsed - before) / 2 ** 20).toBeLessThan(64);
    expect(listReads(h)).toHaveLength(1);
  }, 120_000);

  it('completes an approval within 5 s while another user floods reads', async () => {
    // The real budget (10 per 10 s) and no cache, so every read the flood makes costs a request.
    const h = await harness({
      env: { CLICKHOUSE_CACHE_SECONDS: '0' },
      cloudClient: { throttle: { limit: 10, windowMs: 10_000, maxWaitMs: 3_000 } },
    });
    const { id } = await requestChange(h, 'rename orders-staging orders stage');
    let flooding = true;
    const flood = inWaves(200, 8, async (i) => {
      if (!flooding) return '';
      return answerText(h, await h.command(`list tag:env=v${i}`, USERS.outsider), 60_000);
    });
    // The flood has used up what reads may use of this window.
    await h.simulator.waitForRequests(8);
    const started = performance.now();
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'), {
      timeoutMs: 30_000,
    });
    const elapsed = performance.now() - started;
    flooding = false;
    expect(elapsed).toBeLessThan(5_000);
    expect(h.simulator.service(DEMO_IDS.ordersStaging)?.name).toBe('orders stage');
    const answers = await flood;
    // The flooder is served or told to wait; never left without an answer.
    for (const answer of answers.filter(Boolean))
      expect(answer).toMatch(/ClickHouse Cloud services|Try again in about \d+ seconds/);
    expect(h.logs.filter((line) => line.includes('rate limit reached'))).toStrictEqual([]);
  }, 120_000);

  it('tells a person past the budget that it is busy and when to try again', async () => {
    const h = await harness({
      env: { CLICKHOUSE_CACHE_SECONDS: '0' },
      cloudClient: { throttle: { limit: 3, windowMs: 60_000, approvalReserve: 1, maxWaitMs: 300 } },
    });
    expect(await answerText(h, await h.command('list', USERS.outsider))).toContain('ClickHouse Cloud services');
    expect(await answerText(h, await h.command('list', USERS.outsider))).toContain('ClickHouse Cloud services');
    const busy = await answerText(h, await h.command('list', USERS.second));
    expect(busy).toMatch(
      /:x: \/clickhouse list failed: the bot's share of the ClickHouse Cloud API \(10 requests per 10 seconds, for everyone using the bot\) is taken by other requests right now, so nothing was sent\. Try again in about (\d+) seconds\./,
    );
    expect(Number(/about (\d+) seconds/.exec(busy)?.[1])).toBeGreaterThan(50);
    expect(listReads(h)).toHaveLength(2);
  });
});
