/**
 * `scaling-schedule SERVICE` (issue 38, reading it): the entries in UTC, the one in force now and
 * the base configuration; "no schedule" on the API's 404, and a sentence when the organization
 * does not have the (beta) feature.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { answerText, callSimulatorApi, useHarnesses } from './harness.js';

const harness = useHarnesses();

describe('scaling-schedule SERVICE', () => {
  it('says there is none, then shows the entries, the one in force and the base', async () => {
    const h = await harness();
    expect(await answerText(h, await h.command('scaling-schedule orders-prod'))).toContain('No scaling schedule');
    await callSimulatorApi(h, 'POST', `/services/${DEMO_IDS.ordersProd}/scalingSchedule`, {
      entries: [
        { name: 'always', weekdays: [0, 1, 2, 3, 4, 5, 6], startHourUtc: 0, endHourUtc: 24, numReplicas: 4 },
        {
          name: 'business hours',
          weekdays: [1, 2, 3, 4, 5],
          startHourUtc: 8,
          endHourUtc: 18,
          numReplicas: 6,
          minReplicaMemoryGb: 32,
          maxReplicaMemoryGb: 32,
        },
      ],
    });
    const text = await answerText(h, await h.command('scaling-schedule orders-prod'));
    expect(text).toContain('*business hours* mon–fri 08:00–18:00 UTC · 6 × 32 GB');
    expect(text).toMatch(/\*always\* daily 00:00–24:00 UTC · 4.*\*in force now\*/);
    expect(text).toMatch(/Now: 4.* \(schedule always until 24:00 UTC\)/);
    expect(text).toMatch(/Base: 3 × 8–32 GB/);
  });

  it('says when the organization does not have scheduled autoscaling', async () => {
    const h = await harness();
    h.simulator.scalingSchedulesDisabled = true;
    expect(await answerText(h, await h.command('scaling-schedule orders-prod'))).toContain(
      'does not have scheduled autoscaling',
    );
  });
});
