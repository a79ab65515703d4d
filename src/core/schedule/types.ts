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
});
export type Schedule = z.infer<typeof ScheduleSchema>;
