/**
 * Upgrade windows (official OpenAPI document: `GET`/`PUT`/`DELETE …/services/{serviceId}/upgradeWindow`,
 * `UpgradeWindowPutRequest`, `UpgradeWindow`), as pure functions. A window is a weekday and a
 * start hour (0, 6, 12 or 18 UTC) and lasts 6 hours; only a primary service has one of its own,
 * and the secondary services of its warehouse inherit it.
 */
import { z } from 'zod';
import { validate } from './capacity.js';
import type { Outcome, ServiceRecordLike } from './records.js';

const START_HOURS: readonly number[] = [0, 6, 12, 18];
/** "Currently only a 6-hour window is supported." */
const DURATION_HOURS = 6;

const UpgradeWindowBodySchema = z.strictObject({
  weekday: z
    .number({ error: 'must be number' })
    .int({ error: 'must be integer' })
    .min(0, { error: 'must be >= 0' })
    .max(6, { error: 'must be <= 6' }),
  startHourUtc: z.number({ error: 'must be number' }).refine((hour) => START_HOURS.includes(hour), {
    error: 'must be equal to one of the allowed values: 0, 6, 12, 18',
  }),
});

export interface UpgradeWindow {
  weekday: number;
  startHourUtc: number;
  duration: number;
}

/** The window a PUT body sets, or the API's 400 sentence. */
export function parseUpgradeWindow(body: unknown): Outcome<UpgradeWindow> {
  const parsed = validate(UpgradeWindowBodySchema, body);
  return parsed.ok ? { ok: true, value: { ...parsed.value, duration: DURATION_HOURS } } : parsed;
}

/** PUT and DELETE: "The upgrade window can only be set on primary services" (a 400 otherwise). */
export function secondaryRefusal(record: ServiceRecordLike): string | undefined {
  return record['isPrimary'] === false
    ? 'the upgrade window can only be set on a primary service; secondary services inherit the primary service window'
    : undefined;
}

/** Whose window a service follows: its own if primary, else its warehouse's primary's (if known). */
export function windowOwner(record: ServiceRecordLike, services: readonly ServiceRecordLike[]): string {
  if (record['isPrimary'] !== false) return record.id;
  const warehouse = record['dataWarehouseId'];
  const primary = services.find(
    (service) => service['isPrimary'] !== false && service['dataWarehouseId'] === warehouse,
  );
  return primary?.id ?? record.id;
}
