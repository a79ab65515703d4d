/**
 * A service's upgrade window as `GET …/upgradeWindow` answers it (official OpenAPI document:
 * `UpgradeWindow`): a weekday (0 = Sunday) and a start hour in UTC (0, 6, 12 or 18), 6 hours long.
 * The API answers 404 when none is set (upgrades may then happen at any time).
 */
import { z } from 'zod';

export const UpgradeWindowSchema = z.looseObject({
  weekday: z.number().int().min(0).max(6),
  startHourUtc: z.number().int().min(0).max(23),
  duration: z.number().positive().catch(6),
});
export type UpgradeWindow = z.infer<typeof UpgradeWindowSchema>;

/** The hours (UTC) a window may start at; it lasts this long (official OpenAPI: `UpgradeWindowPutRequest`). */
export const UPGRADE_WINDOW_START_HOURS = [0, 6, 12, 18] as const;
export const UPGRADE_WINDOW_HOURS = 6;

/** PUT …/upgradeWindow: a weekday (0 = Sunday) and one of the start hours. */
export const UpgradeWindowUpdateSchema = z.strictObject({
  weekday: z.number().int().min(0).max(6),
  startHourUtc: z
    .number()
    .int()
    .refine((hour) => (UPGRADE_WINDOW_START_HOURS as readonly number[]).includes(hour)),
});
export type UpgradeWindowUpdate = z.infer<typeof UpgradeWindowUpdateSchema>;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** When the window next opens (or opened, if it is open now), epoch ms. */
export function nextWindowStart(window: UpgradeWindow, now: number): number {
  const today = new Date(now);
  const midnight = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  const daysAhead = (window.weekday - today.getUTCDay() + 7) % 7;
  const start = midnight + daysAhead * DAY_MS + window.startHourUtc * HOUR_MS;
  const length = window.duration * HOUR_MS;
  // Opened on an earlier day (Sunday 22:00 for 6 hours, read on Monday at 01:00) and still open.
  if (start - 7 * DAY_MS + length > now) return start - 7 * DAY_MS;
  // Today's has closed already: next week's.
  return start + length <= now ? start + 7 * DAY_MS : start;
}
