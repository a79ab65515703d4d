/** A scheduled summary: which channel, when (cron in a time zone), and which services. */
import { z } from 'zod';

export const ScheduleSchema = z.object({
  id: z.string(),
  channelId: z.string(),
  cron: z.string(),
  timeZone: z.string(),
  filters: z.array(z.string()),
  createdBy: z.string(),
  createdAt: z.number(),
  /** Share the daily spend chart with each summary (`chart:on`); absent on older schedules. */
  chart: z.boolean().optional(),
});
export type Schedule = z.infer<typeof ScheduleSchema>;

/** Where a schedule's drift baseline lives; it goes with the schedule. */
export const scheduleSnapshotKey = (scheduleId: string) => `schedule:${scheduleId}`;

/** The same filter named twice is one filter; order does not matter. */
export const normaliseFilters = (filters: readonly string[]): string[] => [...new Set(filters)].sort();

/** Ad-hoc summaries of a channel compare against the previous one with the same (normalised) filters. */
export const adHocSnapshotKey = (channelId: string, filters: readonly string[]) =>
  `adhoc:${channelId}:${normaliseFilters(filters).join('&')}`;

/** A channel keeps the baselines of this many ad-hoc filter lists; older ones are dropped. */
export const AD_HOC_SNAPSHOTS_PER_CHANNEL = 5;
