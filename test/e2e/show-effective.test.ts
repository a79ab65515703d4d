/**
 * `show SERVICE` and summaries while a scaling schedule's entry is in force (issue 38): what runs
 * now (`currentScaling.effective*`), which entry and until when, next to the base configuration;
 * the entry taking effect is not drift (drift compares the base configuration). `show` also says
 * the upgrade window in one line.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { answerText, callSimulatorApi, CHANNEL, textOf, useHarnesses, type Harness } from './harness.js';

const harness = useHarnesses();

/** An entry in force from this UTC hour for two hours, every day. */
function businessHours() {
  const hour = new Date().getUTCHours();
  const endHourUtc = (hour + 2) % 24 || 24;
  return {
    name: 'business hours',
    weekdays: [0, 1, 2, 3, 4, 5, 6],
    startHourUtc: hour,
    endHourUtc,
    numReplicas: 6,
    minReplicaMemoryGb: 32,
    maxReplicaMemoryGb: 32,
  };
}

/** The text of the summary posted after `after` calls (headline and thread), once its headline says `headline`. */
async function summaryText(h: Harness, after: number, headline: string): Promise<string> {
  await h.slack.waitFor(
    'chat.postMessage',
    (a) => a.channel === CHANNEL && a.thread_ts === undefined && textOf(a.blocks).includes(headline),
    { after, timeoutMs: 15_000 },
  );
  // The details follow in the thread; the service list is among them.
  await h.slack.waitFor(
    'chat.postMessage',
    (a) => a.channel === CHANNEL && a.thread_ts !== undefined && textOf(a.blocks).includes('orders-prod'),
    { after, timeoutMs: 15_000 },
  );
  return h.slack.calls
    .slice(after)
    .filter((c) => c.method === 'chat.postMessage' && c.args.channel === CHANNEL)
    .map((c) => textOf(c.args.blocks))
    .join('\n');
}

describe('a scaling schedule in force', () => {
  it('shows now, the entry and until when, and the base; the upgrade window in one line', async () => {
    const h = await harness({ env: { CLICKHOUSE_CACHE_SECONDS: '0' } });
    const before = await answerText(h, await h.command('show orders-prod'));
    expect(before).toContain('*Upgrade window:* none set');
    expect(before).not.toContain('Scaling now');
    const entry = businessHours();
    await callSimulatorApi(h, 'POST', `/services/${DEMO_IDS.ordersProd}/scalingSchedule`, { entries: [entry] });
    await callSimulatorApi(h, 'PUT', `/services/${DEMO_IDS.ordersProd}/upgradeWindow`, {
      weekday: 0,
      startHourUtc: 18,
    });
    const text = await answerText(h, await h.command('show orders-prod'));
    const until = `${String(entry.endHourUtc % 24).padStart(2, '0')}:00`;
    expect(text).toContain(
      `*Scaling now*\n:arrows_counterclockwise: now 6 × 32 GB (schedule 'business hours' until ${until} UTC), base 3 × 8–32 GB`,
    );
    expect(text).toContain('*Replicas*\n3 (vertical autoscaling)');
    expect(text).toContain('*Upgrade window:* Sundays 18:00–00:00 UTC');
  });

  it('is not drift: a summary before and after the entry took effect reports no change, and shows both', async () => {
    const h = await harness({ env: { CLICKHOUSE_CACHE_SECONDS: '0' } });
    let after = h.slack.calls.length;
    await h.command('summary');
    await summaryText(h, after, 'First summary');
    await callSimulatorApi(h, 'POST', `/services/${DEMO_IDS.ordersProd}/scalingSchedule`, {
      entries: [businessHours()],
    });
    after = h.slack.calls.length;
    await h.command('summary');
    const second = await summaryText(h, after, 'since the last summary');
    expect(second).toContain('No changes since the last summary');
    expect(second).toContain('now 6 × 32 GB, base 3 × 8–32 GB');
  });
});
