/** The words of scheduled changes (`at TIME`, docs/scheduled-changes.md). */
import { localLabel } from '../command/when.js';
import { slackDate } from './mrkdwn.js';

/** Slack shows the time in each reader's own zone; the fallback (UTC) where it cannot. */
export function appliesAt(at: number): string {
  return `applies ${slackDate(at, '{date_short_pretty} {time}')}`;
}

/** The outcome sentence of a scheduled request the bot noticed too late (stored as text: no Slack markup). */
export function scheduleMissedText(dueAt: number, graceMs: number): string {
  const minutes = Math.round(graceMs / 60_000);
  return (
    `It was to apply at ${localLabel(dueAt, 'UTC')}, but the bot was not running then nor within ` +
    `${minutes} minute${minutes === 1 ? '' : 's'} after (SCHEDULED_GRACE), so nothing was changed. ` +
    'Ask again with a new time if it is still needed.'
  );
}

export const SCHEDULE_STARTED_TEXT = 'Its time came: applying the scheduled change.';

/** The last approval of a scheduled request (audit). */
export function scheduledCompletesText(at: number): string {
  return `The last approval needed: it applies at ${localLabel(at, 'UTC')}.`;
}
