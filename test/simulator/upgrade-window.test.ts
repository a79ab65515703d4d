/** …/services/{serviceId}/upgradeWindow over real HTTP: set, read, inherit, delete, refusals. */
import { describe, expect, it } from 'vitest';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { call, expectDeletedOnce, expectError, expectSuccess, servicePath, demoStarter } from './helpers.js';

const pathOf = (id: string): string => `${servicePath(id)}/upgradeWindow`;
const PRIMARY = pathOf(DEMO_IDS.ordersProd);
const SECONDARY = pathOf(DEMO_IDS.ordersProdReadonly);

const start = demoStarter(Date.parse('2026-11-28T13:20:00Z'));

describe('upgrade windows', () => {
  it('answers 404 until a window is set, then reads back weekday, start hour and the 6-hour duration', async () => {
    const s = await start();
    expect(expectError(await call(s, 'GET', PRIMARY), 404, 'NOT_FOUND')).toContain('no upgrade window');
    const set = await call(s, 'PUT', PRIMARY, { body: { weekday: 0, startHourUtc: 18 } });
    expect(expectSuccess(set)).toStrictEqual({ weekday: 0, startHourUtc: 18, duration: 6 });
    expect(expectSuccess(await call(s, 'GET', PRIMARY))).toStrictEqual({ weekday: 0, startHourUtc: 18, duration: 6 });
    expectSuccess(await call(s, 'PUT', PRIMARY, { body: { weekday: 3, startHourUtc: 0 } }));
    expect(expectSuccess(await call(s, 'GET', PRIMARY))).toStrictEqual({ weekday: 3, startHourUtc: 0, duration: 6 });
  });

  it('lets a secondary service read its primary window but not set or delete one (400)', async () => {
    const s = await start();
    await call(s, 'PUT', PRIMARY, { body: { weekday: 2, startHourUtc: 6 } });
    expect(expectSuccess(await call(s, 'GET', SECONDARY))).toStrictEqual({ weekday: 2, startHourUtc: 6, duration: 6 });
    const put = await call(s, 'PUT', SECONDARY, { body: { weekday: 2, startHourUtc: 6 } });
    expect(expectError(put, 400, 'BAD_REQUEST')).toContain('only be set on a primary service');
    expectError(await call(s, 'DELETE', SECONDARY), 400, 'BAD_REQUEST');
  });

  it('deletes a window (then 404), and answers 404 to deleting none', async () => {
    const s = await start();
    await call(s, 'PUT', PRIMARY, { body: { weekday: 2, startHourUtc: 6 } });
    await expectDeletedOnce(s, PRIMARY);
  });

  it.each([
    [{ weekday: 7, startHourUtc: 0 }, "request body.weekday: 'must be <= 6'"],
    [{ weekday: -1, startHourUtc: 0 }, "request body.weekday: 'must be >= 0'"],
    [
      { weekday: 1, startHourUtc: 3 },
      "request body.startHourUtc: 'must be equal to one of the allowed values: 0, 6, 12, 18'",
    ],
    [{ weekday: 1 }, "request body.startHourUtc: 'must be number'"],
    [{ weekday: 1, startHourUtc: 0, duration: 6 }, 'request body'],
  ])('refuses %j with a 400 that names the field', async (body, message) => {
    const s = await start();
    expect(expectError(await call(s, 'PUT', PRIMARY, { body }), 400, 'BAD_REQUEST')).toContain(message);
    expectError(await call(s, 'GET', PRIMARY), 404, 'NOT_FOUND');
  });

  it('refuses PUT with 403 without the scheduled upgrades feature, and still lets a window be deleted', async () => {
    const s = await start();
    await call(s, 'PUT', PRIMARY, { body: { weekday: 2, startHourUtc: 6 } });
    s.scheduledUpgradesDisabled = true;
    const put = await call(s, 'PUT', PRIMARY, { body: { weekday: 4, startHourUtc: 6 } });
    expect(expectError(put, 403, 'FORBIDDEN')).toContain('not enabled');
    expect((await call(s, 'DELETE', PRIMARY)).status).toBe(200);
  });

  it('answers 404 for an unknown service and 405 for PATCH', async () => {
    const s = await start();
    expectError(await call(s, 'GET', pathOf('5e000000-0000-4000-8000-0000000000ff')), 404, 'NOT_FOUND');
    expectError(await call(s, 'PATCH', PRIMARY, { body: {} }), 405, 'METHOD_NOT_ALLOWED');
  });
});
