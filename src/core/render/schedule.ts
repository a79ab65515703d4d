import type { Schedule } from '../schedule/types.js';
import { checkCron } from '../schedule/cron.js';
import { code, context, header, LIMITS, section, slackDate, truncate, type Block } from './mrkdwn.js';
import { mention } from './people.js';

/** The Remove button of a schedule in `schedule list`; its value is the schedule's id. */
export const ACTION_SCHEDULE_REMOVE = 'schedule_remove';

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

/** Told to the channel: who set up which summary here, and when it first runs. */
export function scheduleAnnouncementBlocks(schedule: Schedule, now: Date): Block[] {
  return [
    section(
      `:calendar: ${mention(schedule.createdBy)} scheduled a summary in this channel: ${describe(schedule)}.\nFirst runs: ${nextRunsText(schedule, now)}`,
    ),
    context(`${code('schedule list')} shows this channel's schedules, each with a Remove button.`),
  ];
}

export function scheduleAddedBlocks(schedule: Schedule, now: Date): Block[] {
  return [
    section(
      `:calendar: Scheduled a summary in this channel: ${describe(schedule)}.\nNext runs: ${nextRunsText(schedule, now)}`,
    ),
    context(`Remove it with ${code(`schedule remove ${schedule.id}`)}.`),
  ];
}

/** Slack's limit on a button's value. */
const BUTTON_VALUE_MAX = 2000;

function removeButton(id: string) {
  return {
    type: 'button' as const,
    action_id: ACTION_SCHEDULE_REMOVE,
    text: { type: 'plain_text' as const, text: 'Remove' },
    value: id,
    confirm: {
      title: { type: 'plain_text' as const, text: 'Remove this schedule?' },
      text: { type: 'plain_text' as const, text: truncate(`No more summaries from ${id} in this channel.`, 300) },
      confirm: { type: 'plain_text' as const, text: 'Remove' },
      deny: { type: 'plain_text' as const, text: 'Keep it' },
    },
  };
}

function scheduleBlock(schedule: Schedule, now: Date): Block {
  const text = `• ${describe(schedule)}, set up by ${mention(schedule.createdBy)} ${slackDate(schedule.createdAt, '{date_short_pretty}')}\n   next: ${nextRunsText(schedule, now)}`;
  return {
    type: 'section',
    text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) },
    // An id Slack cannot carry in a button (none the bot makes) is removed with the command.
    ...(schedule.id.length <= BUTTON_VALUE_MAX ? { accessory: removeButton(schedule.id) } : {}),
  };
}

/** Each schedule with who set it up, its next runs and a Remove button (the rest as a count past Slack's block limit). */
export function scheduleListBlocks(schedules: Schedule[], now: Date): Block[] {
  if (schedules.length === 0)
    return [section('No summary is scheduled in this channel. Add one with `schedule add "0 9 * * 1-5"`.')];
  const shown = schedules.slice(0, LIMITS.messageBlocks - 2);
  const more = schedules.length - shown.length;
  return [
    header(`Scheduled summaries (${schedules.length})`),
    ...shown.map((schedule) => scheduleBlock(schedule, now)),
    ...(more > 0 ? [context(`_…and ${more} more: remove them with ${code('schedule remove ID')}._`)] : []),
  ];
}
