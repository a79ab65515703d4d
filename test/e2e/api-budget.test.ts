/**
 * What a change costs of the API's budget (10 requests per 10 s per key, issue 36 §6): a change
 * by name, filed and applied, is the lookup's list read, the re-read at apply and the PATCH, and
 * the lookup's list is the one read at filing when it is a moment old. The rules are still judged
 * on a fresh record at apply (policy-fresh.test.ts: a tag added outside the bot a second ago).
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { answerText, requestChange, useHarnesses, USERS, type Harness } from './harness.js';

const harness = useHarnesses();

/** The calls of one change: requested by name, approved, applied. */
async function changeCalls(h: Harness, command: string): Promise<string[]> {
  h.simulator.resetRequests();
  const { id } = await requestChange(h, command);
  await h.click(ACTION_APPROVE, id, USERS.approver);
  await expect.poll(async () => (await h.bot.changeStore.get(id))?.status, { timeout: 10_000 }).toBe('applied');
  return h.simulator.requests.map((r) => `${r.method} ${r.path.replace(/^.*\/organizations\/[^/]+/, '')}`);
}

describe('API calls per change', () => {
  it('costs 3 calls with nothing cached: the lookup list, the re-read at apply, the PATCH', async () => {
    const h = await harness();
    expect(await changeCalls(h, 'rename orders-staging orders-stage')).toStrictEqual([
      'GET /services',
      `GET /services/${DEMO_IDS.ordersStaging}`,
      `PATCH /services/${DEMO_IDS.ordersStaging}`,
    ]);
  });

  it('costs 2 calls right after a list: the re-read at apply and the PATCH', async () => {
    const h = await harness();
    await answerText(h, await h.command('list'));
    expect(await changeCalls(h, 'rename orders-staging orders-stage')).toStrictEqual([
      `GET /services/${DEMO_IDS.ordersStaging}`,
      `PATCH /services/${DEMO_IDS.ordersStaging}`,
    ]);
  });
});
