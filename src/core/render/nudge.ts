/** The reminder and escalation posts in a waiting request's thread (core/policy/nudges.ts decides when). */
import { formatDuration } from '../change/temporary.js';
import type { ChangeRequest } from '../change/types.js';
import { MAX_REMINDERS } from '../policy/nudges.js';
import { unmet } from '../policy/progress.js';
import type { Requirement } from '../policy/types.js';
import { changeSummary } from '../change/summary.js';
import { decisionButtons, fitsButton } from './change.js';
import { bold, code, context, esc, section, serviceRef, type Block } from './mrkdwn.js';
import { channelRef, people } from './people.js';
import { whoMayApprove } from './policy.js';

export interface NudgeMessage {
  text: string;
  blocks: Block[];
}

/** What the request changes, so that a reminder read on its own (a DM, a notification) says it: "orders-prod: IP access". */
function subjectOf(request: ChangeRequest): string {
  const { plan } = request;
  const changes = changeSummary(plan.changes);
  return `${serviceRef(plan.serviceName, plan.serviceId)}${changes ? `: ${esc(changes)}` : ''}`;
}

/** "CR-… still waits for approval after 30m: production needs two: 1 more from @bob, @carol". */
export function reminderMessage(
  request: ChangeRequest,
  requirements: readonly Requirement[],
  round: number,
  now: number,
): NudgeMessage {
  const waited = formatDuration(now - request.createdAt);
  const lines = unmet(requirements, request.approvals ?? []).map(
    (p) => `• ${bold(p.requirement.rule)}: ${p.missing} more from ${whoMayApprove(p, request.requesterId)}`,
  );
  const last = round >= MAX_REMINDERS ? ' This is the last reminder.' : '';
  const what = request.reviewOf ? `review of break-glass ${request.reviewOf}` : 'approval';
  const head = `:bell: Request ${code(request.id)} (${subjectOf(request)}) still waits for ${what} after ${waited}.${last}`;
  return {
    text: `Request ${request.id} still waits for ${what} after ${waited}`,
    blocks: [section([head, ...lines].join('\n'))],
  };
}

/** "CR-… has waited 2h for *production needs two*: @oncall may approve it now too." */
export function escalationMessage(request: ChangeRequest, requirement: Requirement): NudgeMessage {
  const to = requirement.escalate?.to ?? [];
  const after = formatDuration(requirement.escalate?.afterMs ?? 0);
  return {
    text: `Request ${request.id} is escalated after ${after}`,
    blocks: [
      section(
        `:rotating_light: Request ${code(request.id)} (${subjectOf(request)}) has waited ${after} for ${bold(requirement.rule)}: ${people(to)} may ${request.reviewOf ? 'mark it reviewed' : 'approve it'} now too.`,
      ),
    ],
  };
}

/** Where a reminder DM points: the request's message, by Slack's link when it gave one. */
export interface RequestPlace {
  channelId: string;
  /** Slack's permalink of the request's message; undefined when Slack would not give it. */
  link?: string;
}

/**
 * The reminder as a direct message: the same words (the service and the change), where the request
 * is (a link to it, or the channel in a sentence when Slack gave no link), and its buttons, which
 * are the channel's (same action ids and value), so a click here takes the same path.
 */
export function reminderDmMessage(request: ChangeRequest, reminder: NudgeMessage, place: RequestPlace): NudgeMessage {
  const link = place.link !== undefined && isSafeLink(place.link) ? place.link : undefined;
  const where = link
    ? `<${link.replaceAll('&', '&amp;')}|Open the request> in ${channelRef(place.channelId)}.`
    : `Slack gave no link to the request: it is in ${channelRef(place.channelId)}, and the buttons here work as well.`;
  const blocks: Block[] = [...reminder.blocks, context(where)];
  if (fitsButton(request.id))
    blocks.push({
      type: 'actions',
      block_id: 'change_actions',
      elements: decisionButtons(request.id, request.reviewOf !== undefined),
    });
  return { text: reminder.text, blocks };
}

/** An https link that cannot break out of Slack's <url|label> markup. */
function isSafeLink(url: string): boolean {
  return /^https?:\/\/[^\s<>|]+$/.test(url);
}
