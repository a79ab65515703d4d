/**
 * Issue 22, point 7, end to end: `ip add SVC 10.0.0.1 for 2 hours` was posted and applied as a
 * permanent entry described "for 2 hours". The real bot over signed HTTP, real Redis, the simulator.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { answerText, requestChange, textOf, useHarnesses, USERS, CHANNEL, type Harness } from './harness.js';

const harness = useHarnesses();
const SOURCE = '10.0.0.1';
const entryOf = (h: Harness) =>
  h.simulator.service(DEMO_IDS.ordersProd)?.ipAccessList?.find((entry) => entry.source === SOURCE);

describe('a duration in words after for', () => {
  it('"for 2 hours" asks for a 2-hour grant, and the applied entry has no "for 2 hours" description', async () => {
    const h = await harness();
    const { id, posted } = await requestChange(h, `ip add orders-prod ${SOURCE} for 2 hours`);
    expect(textOf(posted.args.blocks)).toContain('Temporary:* for 2h');
    const [pending] = await h.bot.changeStore.listPending(CHANNEL, Date.now());
    expect(pending?.temporary?.durationMs).toBe(2 * 3600_000);

    await h.click(ACTION_APPROVE, id, USERS.approver);
    await expect.poll(() => entryOf(h), { timeout: 10_000 }).toBeDefined();
    expect(entryOf(h)?.description ?? '').toBe('');
  });

  it('"for a while" is refused with the accepted forms, and nothing is requested', async () => {
    const h = await harness();
    const answer = await answerText(h, await h.command(`ip add orders-prod ${SOURCE} for a while`));
    expect(answer).toContain('not a duration');
    expect(answer).toContain('for 2h');
    expect(await h.bot.changeStore.listPending(CHANNEL, Date.now())).toHaveLength(0);
    expect(h.simulator.requests.filter((r) => r.method === 'PATCH')).toHaveLength(0);
  });

  it('"endpoint … mysql on for 90 minutes" asks for a 90-minute grant', async () => {
    const h = await harness();
    const { posted } = await requestChange(h, 'endpoint orders-prod mysql on for 90 minutes');
    expect(textOf(posted.args.blocks)).toContain('Temporary:* for 1h 30m');
  });
});
