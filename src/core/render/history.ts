import type { AuditAction, AuditEntry } from '../change/audit.js';
import {
  bold,
  code,
  context,
  esc,
  header,
  LIMITS,
  packLines,
  section,
  serviceRef,
  slackDate,
  type Block,
} from './mrkdwn.js';
import { mention } from './people.js';

const ICON: Record<AuditAction, string> = {
  requested: ':memo:',
  approved: ':thumbsup:',
  applied: ':white_check_mark:',
  failed: ':x:',
  stale: ':warning:',
  rejected: ':no_entry:',
  cancelled: ':heavy_multiplication_x:',
  expired: ':hourglass_flowing_sand:',
  'break-glass': ':rotating_light:',
  reviewed: ':mag:',
};

/** Break-glass entries stand out: nobody approved them, and someone must look at them after the fact. */
const ACTION_TEXT: Partial<Record<AuditAction, string>> = {
  'break-glass': '*BREAK-GLASS* applied without approval',
  stale: 'not applied, found stale',
  reviewed: 'break-glass reviewed',
};

/**
 * Nobody expires a request, nor makes it stale: the entry's actor is only whoever happened to
 * notice it (the approver whose click found the service changed), who must not read as its cause.
 */
const UNCAUSED: ReadonlySet<AuditAction> = new Set<AuditAction>(['expired', 'stale']);

/** How far back the audit trail reaches: its oldest kept entry, and how long entries are kept. */
export interface AuditReach {
  beginsAt: number | undefined;
  retentionDays: number;
}

export function historyBlocks(entries: AuditEntry[], reach: AuditReach, serviceLabel?: string): Block[] {
  const title = serviceLabel ? `History of ${serviceLabel}` : 'Recent change history';
  const scope = serviceLabel
    ? `No change request for ${esc(serviceLabel)} was made in this channel`
    : 'No change request was made in this channel';
  if (entries.length === 0) return [section(`${bold(title)}\n${scope} within the record, which ${reachText(reach)}.`)];
  const lines = entries.map((e) => {
    const detail = [
      e.summary ? esc(e.summary) : '',
      e.reason ? `because “${esc(e.reason)}”` : '',
      e.ticket ? `ticket ${code(e.ticket)}` : '',
      e.message ? `_${esc(e.message)}_` : '',
      e.apiRequestId ? `API request ${code(e.apiRequestId)}` : '',
    ]
      .filter(Boolean)
      .join(' · ');
    const actor = UNCAUSED.has(e.action) ? '' : ` by ${mention(e.actorId)}`;
    return `${ICON[e.action]} ${slackDate(e.at)} ${serviceRef(e.serviceName, e.serviceId)} ${ACTION_TEXT[e.action] ?? esc(e.action)}${actor} ${code(e.changeId)}${detail ? `\n      ${detail}` : ''}`;
  });
  return [
    header(title),
    ...packLines(lines, LIMITS.messageBlocks - 2, (n) => `_…and ${n} older entries_`),
    context(`Requests made in this channel. The record ${reachText(reach)}.`),
  ];
}

/** Never "nothing recorded": what the record covers, so an empty answer is read for what it is. */
function reachText({ beginsAt, retentionDays }: AuditReach): string {
  const kept = `entries are kept ${retentionDays} days`;
  if (beginsAt === undefined) return `is empty so far (${kept})`;
  return `goes back to ${slackDate(beginsAt)} (${kept})`;
}
