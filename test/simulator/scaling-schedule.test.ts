/** …/services/{serviceId}/scalingSchedule over real HTTP: shapes, windows, currentScaling, refusals. */
import { describe, expect, it } from 'vitest';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import type { CloudSimulator } from '../../src/simulator/server.js';
import type { ServiceRecordLike } from '../../src/simulator/state.js';
import { call, expectDeletedOnce, expectError, expectSuccess, servicePath, demoStarter, UUID_V4 } from './helpers.js';

/** Saturday 2026-11-28, 13:20 UTC (weekday 6). */
const SATURDAY_AFTERNOON = Date.parse('2026-11-28T13:20:00Z');
const HOUR = 3_600_000;
const ID = DEMO_IDS.ordersProd;
const path = `${servicePath(ID)}/scalingSchedule`;

interface Schedule {
  entries: Array<Record<string, unknown> & { id: string; isActiveNow: boolean }>;
  baseConfig: Record<string, unknown>;
  activeEntryId?: string;
}

const start = demoStarter(SATURDAY_AFTERNOON);

const BUSINESS_HOURS = {
  name: 'weekend peak',
  weekdays: [0, 6],
  startHourUtc: 12,
  endHourUtc: 18,
  minReplicaMemoryGb: 64,
  maxReplicaMemoryGb: 128,
  numReplicas: 5,
};
const NIGHTS = { name: 'nights', weekdays: [1, 2, 3, 4, 5], startHourUtc: 22, endHourUtc: 6, idleScaling: true };

const post = (s: CloudSimulator, entries: unknown[]) => call(s, 'POST', path, { body: { entries } });
const currentScaling = async (s: CloudSimulator) =>
  expectSuccess<ServiceRecordLike>(await call(s, 'GET', servicePath(ID)))['currentScaling'] as Record<string, unknown>;

describe('scaling schedules', () => {
  it('answers 404 while a service has no schedule, and for an unknown service', async () => {
    const s = await start();
    expect(expectError(await call(s, 'GET', path), 404, 'NOT_FOUND')).toContain('no scaling schedule');
    expectError(await call(s, 'DELETE', path), 404, 'NOT_FOUND');
    expectError(
      await call(s, 'GET', `${servicePath('5e000000-0000-4000-8000-0000000000ff')}/scalingSchedule`),
      404,
      'NOT_FOUND',
    );
  });

  it('stores entries with ids and defaults, says which is active, and GET reads the same back', async () => {
    const s = await start();
    const schedule = expectSuccess<Schedule>(await post(s, [BUSINESS_HOURS, NIGHTS]));
    const [peak, nights] = schedule.entries;
    expect(peak?.id).toMatch(UUID_V4);
    expect({ ...peak, id: undefined }).toStrictEqual({
      id: undefined,
      name: 'weekend peak',
      weekdays: [0, 6],
      startHourUtc: 12,
      endHourUtc: 18,
      autoscalingMode: 'vertical',
      minReplicaMemoryGb: 64,
      maxReplicaMemoryGb: 128,
      minReplicas: 5,
      maxReplicas: 5,
      isActiveNow: true,
    });
    expect(nights).toMatchObject({ autoscalingMode: 'vertical', idleScaling: true, isActiveNow: false });
    expect(nights).not.toHaveProperty('minReplicas');
    expect(schedule.activeEntryId).toBe(peak?.id);
    expect(schedule.baseConfig).toMatchObject({ autoscalingMode: 'vertical', minReplicas: 3, maxReplicas: 3 });
    expect(expectSuccess<Schedule>(await call(s, 'GET', path))).toStrictEqual(schedule);
  });

  it('puts the active entry in currentScaling while the base configuration stays, and follows the clock', async () => {
    const clock = { at: SATURDAY_AFTERNOON };
    const s = await start(clock);
    const before = await currentScaling(s);
    await post(s, [BUSINESS_HOURS]);
    const record = expectSuccess<ServiceRecordLike>(await call(s, 'GET', servicePath(ID)));
    expect(record['numReplicas']).toBe(3);
    expect(record['currentScaling']).toMatchObject({
      effectiveMinReplicas: 5,
      effectiveMaxReplicas: 5,
      effectiveMinReplicaMemoryGb: 64,
      effectiveMaxReplicaMemoryGb: 128,
    });
    // CurrentScaling.activeEntryId: "ID of the schedule entry whose values are currently applied".
    const active = expectSuccess<Schedule>(await call(s, 'GET', path));
    expect((record['currentScaling'] as Record<string, unknown>)['activeEntryId']).toBe(active.entries[0]?.id);
    clock.at += 5 * HOUR; // 18:20: the window (exclusive end) is over
    expect(await currentScaling(s)).toStrictEqual(before);
    expect(before).not.toHaveProperty('activeEntryId');
    const schedule = expectSuccess<Schedule>(await call(s, 'GET', path));
    expect(schedule.entries[0]?.isActiveNow).toBe(false);
    expect(schedule).not.toHaveProperty('activeEntryId');
  });

  it('runs a window whose end is below its start past midnight into the next day', async () => {
    const clock = { at: Date.parse('2026-11-28T03:00:00Z') }; // Saturday 03:00, after Friday 22:00
    const s = await start(clock);
    await post(s, [{ ...NIGHTS, idleScaling: false, minReplicaMemoryGb: 8, maxReplicaMemoryGb: 8 }]);
    expect(await currentScaling(s)).toMatchObject({ effectiveMaxReplicaMemoryGb: 8, effectiveIdleScaling: false });
    clock.at = Date.parse('2026-11-28T23:00:00Z'); // Saturday night: Saturday is not one of its days
    expect(await currentScaling(s)).not.toMatchObject({ effectiveMaxReplicaMemoryGb: 8 });
  });

  it('keeps the scheduled values in force when replicaScaling changes the base', async () => {
    const s = await start();
    await post(s, [BUSINESS_HOURS]);
    const scaled = await call(s, 'PATCH', `${servicePath(ID)}/replicaScaling`, { body: { numReplicas: 4 } });
    expect(expectSuccess<ServiceRecordLike>(scaled)['numReplicas']).toBe(4);
    expect(await currentScaling(s)).toMatchObject({ effectiveMinReplicas: 5 });
    expect(expectSuccess<Schedule>(await call(s, 'GET', path)).baseConfig).toMatchObject({ minReplicas: 4 });
  });

  it('clears the schedule with an empty list: an empty baseConfig, then 404, and the base in force', async () => {
    const s = await start();
    const before = await currentScaling(s);
    await post(s, [BUSINESS_HOURS]);
    expect(expectSuccess<Schedule>(await post(s, []))).toStrictEqual({ entries: [], baseConfig: {} });
    expectError(await call(s, 'GET', path), 404, 'NOT_FOUND');
    expect(await currentScaling(s)).toStrictEqual(before);
  });

  it('DELETE restores the base configuration before removing the schedule', async () => {
    const s = await start();
    const before = await currentScaling(s);
    await post(s, [BUSINESS_HOURS]);
    await expectDeletedOnce(s, path);
    expect(await currentScaling(s)).toStrictEqual(before);
  });

  it.each([
    [{ ...BUSINESS_HOURS, weekdays: [7] }, "request body.entries[0].weekdays[0]: 'must be <= 6'"],
    [{ ...BUSINESS_HOURS, weekdays: [] }, "request body.entries[0].weekdays: 'must NOT have fewer than 1 items'"],
    [{ ...BUSINESS_HOURS, startHourUtc: 24 }, "request body.entries[0].startHourUtc: 'must be <= 23'"],
    [{ ...BUSINESS_HOURS, endHourUtc: 0 }, "request body.entries[0].endHourUtc: 'must be >= 1'"],
    [{ ...BUSINESS_HOURS, endHourUtc: 12 }, "request body.entries[0]: 'endHourUtc must differ from startHourUtc'"],
    [
      { ...BUSINESS_HOURS, minReplicaMemoryGb: 30 },
      "request body.entries[0].minReplicaMemoryGb: 'must be multiple of 4'",
    ],
    [{ ...BUSINESS_HOURS, maxReplicaMemoryGb: undefined }, 'must be provided together'],
    [{ ...BUSINESS_HOURS, minReplicas: 2, maxReplicas: 4 }, 'numReplicas is mutually exclusive'],
    [{ ...NIGHTS, minReplicas: 2 }, 'minReplicas must be provided together with maxReplicas'],
    [{ ...NIGHTS, minReplicas: 2, maxReplicas: 4 }, 'needs autoscalingMode "horizontal"'],
    [{ ...NIGHTS, autoscalingMode: 'horizontal', minReplicas: 2, maxReplicas: 4 }, 'a horizontal entry needs'],
    [{ name: 'x', weekdays: [1], startHourUtc: 1 }, "request body.entries[0].endHourUtc: 'must be number'"],
  ])('refuses %j with a 400 that names the field', async (entry, message) => {
    const s = await start();
    expect(expectError(await post(s, [entry]), 400, 'BAD_REQUEST')).toContain(message);
    expectError(await call(s, 'GET', path), 404, 'NOT_FOUND');
  });

  it('accepts a horizontal entry with equal memory bounds and a replica band', async () => {
    const s = await start();
    const entry = {
      ...NIGHTS,
      autoscalingMode: 'horizontal',
      minReplicas: 2,
      maxReplicas: 6,
      minReplicaMemoryGb: 16,
      maxReplicaMemoryGb: 16,
    };
    expect(expectSuccess<Schedule>(await post(s, [entry])).entries[0]).toMatchObject({
      minReplicas: 2,
      maxReplicas: 6,
    });
  });

  it('answers every method with 403 and a sentence when the organization lacks the feature', async () => {
    const s = await start();
    s.scalingSchedulesDisabled = true;
    for (const method of ['GET', 'POST', 'DELETE']) {
      const response = await call(s, method, path, method === 'POST' ? { body: { entries: [] } } : {});
      expect(expectError(response, 403, 'FORBIDDEN')).toContain('not enabled for this organization');
    }
  });
});
