/** The words of scheduled changes (`at TIME`, docs/scheduled-changes.md). */
import { localLabel } from '../command/when.js';
import type { ChangeRequest } from '../change/types.js';
import { slackDate } from './mrkdwn.js';

/** Slack shows the time in each reader's own zone; the fallback (UTC) where it cannot. */
export function appliesAt(at: number): string {
  return `applies at ${slackDate(at, '{date_short_pretty} {time}')}`;
}

/**
 * When a waiting request with a time applies: at its time if approved by then. One deferred to its
 * window's next opening keeps the usual approval time, and applies once approved when that is later.
 */
export function pendingAppliesText(request: Pick<ChangeRequest, 'applyAt' | 'expiresAt'>, applyAt: number): string {
  if (request.expiresAt <= applyAt) return `${appliesAt(applyAt)} if approved by then`;
  return `${appliesAt(applyAt)}, or once approved if later · expires ${slackDate(request.expiresAt)}`;
}

/** Until when a waiting request waits, the same to its requester and its approvers: its time, if it has one. */
export function waitingUntilText(request: Pick<ChangeRequest, 'applyAt' | 'expiresAt'>): string {
  if (request.applyAt !== undefined) return pendingAppliesText(request, request.applyAt);
  return `expires ${slackDate(request.expiresAt)}`;
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

/** Where the zone `at TIME` was read in came from (commands/time-zone.ts). */
export type ZoneSource = 'command' | 'channel' | 'requester' | 'default';

const ZONE_SOURCES: Record<ZoneSource, string> = {
  command: 'as you wrote',
  channel: "this channel's time zone",
  requester: 'your Slack time zone',
  default: 'neither this channel nor your Slack profile sets a time zone',
};

/** "It applies at 2026-12-01 09:00 Europe/Berlin (this channel's time zone)": what the requester is told on filing. */
export function scheduledFilingText(at: number, zone: string, source: ZoneSource, approved: boolean): string {
  const local = localLabel(at, zone);
  return approved
    ? `It applies at ${local} (${ZONE_SOURCES[source]}), unless you cancel it before.`
    : `Once approved it applies at ${local} (${ZONE_SOURCES[source]}); it expires if nobody approves it by then.`;
}
