/** schedule add / list / remove, and the summary command. */
import { randomBytes } from 'node:crypto';
import { checkCron } from '../core/schedule/cron.js';
import { code, esc } from '../core/render/mrkdwn.js';
import { scheduleAddedBlocks, scheduleAnnouncementBlocks, scheduleListBlocks } from '../core/render/schedule.js';
import type { Schedule } from '../core/schedule/types.js';
import { replyText, type BotServices, type Invocation } from './context.js';

export async function addSchedule(
  input: { cron: string; filters: string[]; timeZone?: string; chart?: boolean },
  inv: Invocation,
  s: BotServices,
): Promise<void> {
  const timeZone = input.timeZone ?? s.summaryTimeZone;
  const { minIntervalSeconds, maxPerChannel } = s.scheduleLimits;
  const check = checkCron(input.cron, timeZone, new Date(), minIntervalSeconds);
  if (!check.ok) return replyText(inv, `:warning: ${esc(check.message)}`);
  const schedule: Schedule = {
    // 64 random bits: ids never collide, and the store adds only if the id is free anyway.
    id: `sch-${randomBytes(8).toString('hex')}`,
    channelId: inv.channelId,
    cron: input.cron,
    timeZone,
    filters: input.filters,
    createdBy: inv.userId,
    createdAt: Date.now(),
    ...(input.chart ? { chart: true } : {}),
  };
  const added = await s.scheduler.add(schedule, { maxPerChannel });
  if (!added.ok && added.reason === 'channel-full') {
    return replyText(
      inv,
      `:warning: This channel already has ${maxPerChannel} scheduled summaries, the most allowed (SCHEDULE_MAX_PER_CHANNEL=${maxPerChannel}). Remove one with \`schedule remove ID\` (\`schedule list\` shows them) and add this one again.`,
    );
  }
  if (!added.ok)
    return replyText(
      inv,
      ':x: The schedule could not be added because its id was taken. Please run the command again.',
    );
  const now = new Date();
  // The channel learns who set up what and when it first runs; the requester keeps the details.
  await s.messenger
    .post(inv.channelId, {
      text: `Scheduled summary ${schedule.id} set up by ${inv.userId}`,
      blocks: scheduleAnnouncementBlocks(schedule, now),
    })
    .catch((error: unknown) => s.logger.warn(`could not tell ${inv.channelId} about ${schedule.id}: ${String(error)}`));
  await inv.reply({ text: `Scheduled summary ${schedule.id}`, blocks: scheduleAddedBlocks(schedule, now) });
}

export async function listSchedules(inv: Invocation, s: BotServices): Promise<void> {
  const schedules = await s.scheduleStore.listSchedules(inv.channelId);
  await inv.reply({
    text: `${schedules.length} scheduled summaries`,
    blocks: scheduleListBlocks(schedules, new Date()),
  });
}

export async function removeSchedule(id: string, inv: Invocation, s: BotServices): Promise<void> {
  await replyText(inv, await removeChannelSchedule(id, inv.channelId, s));
}

/** Removes a schedule of this channel (`schedule remove`, or its Remove button); the sentence to answer. */
export async function removeChannelSchedule(
  id: string,
  channelId: string,
  s: Pick<BotServices, 'scheduleStore' | 'scheduler'>,
): Promise<string> {
  const mine = (await s.scheduleStore.listSchedules(channelId)).some((schedule) => schedule.id === id);
  if (!mine) return `:grey_question: This channel has no schedule ${code(id)}. \`schedule list\` shows its schedules.`;
  await s.scheduler.remove(id);
  return `:wastebasket: Removed schedule ${code(id)}.`;
}
