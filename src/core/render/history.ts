import type { AuditAction, AuditEntry } from '../change/audit.js';
import { mention } from './change.js';
import { bold, code, esc, header, LIMITS, packLines, section, slackDate, type Block } from './mrkdwn.js';

const ICON: Record<AuditAction, string> = {
  requested: ':memo:',
  approved: ':thumbsup:',
  applied: ':white_check_mark:',
  failed: ':x:',
  stale: ':warning:',
  rejected: ':no_entry:',
  cancelled: ':heavy_multiplication_x:',
  expired: ':hourglass_flowing_sand:',
};

export function historyBlocks(entries: AuditEntry[], serviceLabel?: string): Block[] {
  const title = serviceLabel ? `History of ${serviceLabel}` : 'Recent change history';
  if (entries.length === 0) return [section(`${esc(title)}: nothing recorded yet.`)];
  const lines = entries.map((e) => {
    const detail = [e.summary ? esc(e.summary) : '', e.message ? `_${esc(e.message)}_` : '', e.apiRequestId ? `API request ${code(e.apiRequestId)}` : '']
      .filter(Boolean)
      .join(' · ');
    // Nobody expires a request: the entry's actor is only whoever happened to notice it.
    const actor = e.action === 'expired' ? '' : ` by ${mention(e.actorId)}`;
    return `${ICON[e.action]} ${slackDate(e.at)} ${bold(e.serviceName)} ${esc(e.action)}${actor} ${code(e.changeId)}${detail ? `\n      ${detail}` : ''}`;
  });
  return [header(title), ...packLines(lines, LIMITS.messageBlocks - 1, (n) => `_…and ${n} older entries_`)];
}
