/**
 * `upgrade-window SERVICE` (issue 38, reading it): the weekly window in UTC and the next one as a
 * Slack date (each reader sees their own time); none set (the API's 404) says upgrades may come
 * at any time.
 */
import { describe, expect, it } from 'vitest';
import { nextWindowStart } from '../../src/core/service/upgrade-window.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { answerText, callSimulatorApi, useHarnesses } from './harness.js';

const harness = useHarnesses();

describe('upgrade-window SERVICE', () => {
  it('says when none is set, then the window someone set in the console', async () => {
    const h = await harness();
    expect(await answerText(h, await h.command('upgrade-window orders-prod'))).toContain(
      'No upgrade window is set: ClickHouse Cloud may upgrade it at any time.',
    );
    await callSimulatorApi(h, 'PUT', `/services/${DEMO_IDS.ordersProd}/upgradeWindow`, {
      weekday: 0,
      startHourUtc: 18,
    });
    const text = await answerText(h, await h.command('upgrade-window orders-prod'));
    expect(text).toContain('Upgrades happen Sundays 18:00–00:00 UTC.');
    expect(text).toMatch(/(Next: <!date\^\d+\^\{date_short_pretty\} \{time\}\|[^>]+> to|Open now, until) <!date\^/);
  });
});

describe('the next window', () => {
  const at = (iso: string) => Date.parse(iso);
  // 2026-11-29 is a Sunday.
  const sunday18 = { weekday: 0, startHourUtc: 18, duration: 6 };

  it('is later today, open now, or next week', () => {
    expect(nextWindowStart(sunday18, at('2026-11-29T10:00:00Z'))).toBe(at('2026-11-29T18:00:00Z'));
    expect(nextWindowStart(sunday18, at('2026-11-29T20:00:00Z'))).toBe(at('2026-11-29T18:00:00Z'));
    expect(nextWindowStart(sunday18, at('2026-11-30T00:00:00Z'))).toBe(at('2026-12-06T18:00:00Z'));
    // Opened yesterday at 22:00 and still open.
    expect(nextWindowStart({ weekday: 0, startHourUtc: 22, duration: 6 }, at('2026-11-30T01:00:00Z'))).toBe(
      at('2026-11-29T22:00:00Z'),
    );
    expect(nextWindowStart({ weekday: 3, startHourUtc: 0, duration: 6 }, at('2026-11-29T10:00:00Z'))).toBe(
      at('2026-12-02T00:00:00Z'),
    );
  });
});
