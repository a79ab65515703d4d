import type { Schedule } from '../schedule/types.js';
import { checkCron } from '../schedule/cron.js';
import { code, context, header, LIMITS, packLines, section, slackDate, type Block } from './mrkdwn.js';

function describe(schedule: Schedule): string {
  const filters = schedule.filters.length > 0 ? ` for ${schedule.filters.map(code).join(' ')}` : ' for every service';
  return `${code(schedule.id)} ${code(schedule.cron)} (${code(schedule.timeZone)})${filters}${schedule.chart ? ', with the spend chart' : ''}`;
}

function nextRunsText(schedule: Schedule, now: Date): string {
  const check = checkCron(schedule.cron, schedule.timeZone, now);
  return check.ok
    ? check.nextRuns.map((d) => slackDate(d.getTime(), '{date_short_pretty} {time}')).join(', ')
    : 'never';
}

export function scheduleAddedBlocks(schedule: Schedule, now: Date): Block[] {
  return [
    section(
      `:calendar: Scheduled a summary in this channel: ${describe(schedule)}.\nNext runs: ${nextRunsText(schedule, now)}`,
    ),
    context(`Remove it with ${code(`schedule remove ${schedule.id}`)}.`),
  ];
}

export function scheduleListBlocks(schedules: Schedule[], now: Date): Block[] {
  if (schedules.length === 0)
    return [section('No summary is scheduled in this channel. Add one with `schedule add "0 9 * * 1-5"`.')];
  const lines = schedules.map((s) => `• ${describe(s)}\n   next: ${nextRunsText(s, now)}`);
  return [
    header(`Scheduled summaries (${schedules.length})`),
    ...packLines(lines, LIMITS.messageBlocks - 1, (n) => `_…and ${n} more_`),
  ];
}
