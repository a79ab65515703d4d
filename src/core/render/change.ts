/** Block Kit for change requests: the message people approve, and what it becomes afterwards. */
import { appliesAt, waitingUntilText } from './scheduled.js';
import { changeSummary } from '../change/summary.js';
import type { ChangeRequest, ChangeStatus, FieldChange } from '../change/types.js';
import { apiReference } from './errors.js';
import {
  bold,
  code,
  context,
  distinctSentences,
  esc,
  header,
  LIMITS,
  packLines,
  section,
  serviceRef,
  serviceRefPlain,
  slackDate,
  type Block,
} from './mrkdwn.js';
import { channelRef, mention, people } from './people.js';
import { approvalChannelOf } from '../policy/progress.js';
import { progressLines, progressSummary } from './policy.js';
import { offersUndo, temporaryNote, undoButton } from './temporary.js';
import { BOT_ACTOR } from '../change/grant.js';
import { breakGlassSkippedText, reviewBlocks } from './breakglass.js';
import { liveLoadText } from './live-load.js';

export const ACTION_APPROVE = 'change_approve';
export const ACTION_REJECT = 'change_reject';
export const ACTION_CANCEL = 'change_cancel';

export function changeLine(change: FieldChange): string {
  return `• *${change.label}*: ${code(change.before)} → ${code(change.after)}`;
}

/**
 * The request as a message. `linkOnly`: the requester's channel of a request decided in an
 * approval channel: the same record, without Approve and Reject, saying where it is decided (once
 * approved and waiting for its time, it offers Cancel before its time there too).
 */
export function changeRequestBlocks(request: ChangeRequest, linkOnly = false): Block[] {
  if (request.reviewOf) return reviewBlocks(request, fitsButton(request.id) ? [markReviewedButton(request.id)] : []);
  const { plan } = request;
  const blocks: Block[] = [
    request.breakGlass
      ? header(`Break-glass change: ${serviceRefPlain(plan.serviceName, plan.serviceId, LIMITS.headerText - 20)}`)
      : header(`Change request: ${serviceRefPlain(plan.serviceName, plan.serviceId, LIMITS.headerText - 16)}`),
    section(
      `${mention(request.requesterId)} ${request.breakGlass ? 'broke glass to change' : 'asks to change'} ${serviceRef(plan.serviceName, plan.serviceId)}${request.organization ? ` in the organization ${code(request.organization)}` : ''}:`,
    ),
  ];
  const load = liveLoadText(plan, request.status);
  const warnings = distinctSentences([...(load?.warnings ?? []), ...plan.warnings]).map((w) => `:warning: *${esc(w)}*`);
  const note = temporaryNote(request);
  const rules = request.breakGlass
    ? [breakGlassSkippedText(request)]
    : request.requirements
      ? progressLines(request, request.requirements)
      : [];
  const why = justificationLines(request);
  const budget =
    LIMITS.messageBlocks -
    blocks.length -
    3 -
    note.length -
    (warnings.length > 0 ? 1 : 0) -
    (rules.length > 0 ? 1 : 0) -
    (why ? 1 : 0) -
    (load ? 1 : 0);
  blocks.push(...packLines(plan.changes.map(changeLine), budget, (n) => `_…and ${n} more changes_`));
  if (load) blocks.push(section(load.line));
  if (why) blocks.push(section(why));
  if (warnings.length > 0) blocks.push(section(warnings.join('\n')));
  if (rules.length > 0) blocks.push(section(`*Approval rules*\n${rules.join('\n')}`));
  // An undo names what it undoes last, so the request's own id is the first one read.
  const status = statusBlocks(request, linkOnly);
  if (request.undoOf) blocks.push(...status, ...note);
  else blocks.push(...note, ...status);
  return blocks;
}

/** "*Reason:* “…”" and "*Ticket:* `OPS-1`", one per line; undefined when the request gives neither. */
export function justificationLines(request: Pick<ChangeRequest, 'reason' | 'ticket'>): string | undefined {
  const lines = [
    ...(request.reason ? [`*Reason:* “${esc(request.reason)}”`] : []),
    ...(request.ticket ? [`*Ticket:* ${code(request.ticket)}`] : []),
  ];
  return lines.length > 0 ? lines.join('\n') : undefined;
}

/** The same in one short phrase for lists: " · because “…” · ticket `OPS-1`" (a long reason cut). */
export function justificationPhrase(request: Pick<ChangeRequest, 'reason' | 'ticket'>): string {
  return [
    ...(request.reason ? [` · because “${esc(shortened(request.reason, PHRASE_REASON_LENGTH))}”`] : []),
    ...(request.ticket ? [` · ticket ${code(request.ticket)}`] : []),
  ].join('');
}

/** A list line stays a line: the whole reason is in the request's message. */
const PHRASE_REASON_LENGTH = 120;

function shortened(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/** A button carries the request id as its value: an id past Slack's limit (never the bot's own) gets none. */
export const fitsButton = (requestId: string): boolean => requestId.length <= LIMITS.buttonValue;

function statusBlocks(request: ChangeRequest, linkOnly: boolean): Block[] {
  if (!fitsButton(request.id)) return [section(outcomeOrWaiting(request)), context(`Request ${code(request.id)}`)];
  // A revert is applied by the bot at once: nobody decides it, so it offers no buttons.
  if (request.status === 'pending' && request.revertOf) return [context(`Request ${code(request.id)} · reverting now`)];
  if (request.status === 'pending' && request.breakGlass)
    return [context(`Request ${code(request.id)} · :rotating_light: break-glass: applying now without approval`)];
  const decidedIn = linkOnly ? approvalChannelOf(request) : undefined;
  if (request.status === 'pending' && decidedIn)
    return [
      context(
        `Request ${code(request.id)} · waiting for approval in ${channelRef(decidedIn)} · ${waitingUntilText(request)}`,
      ),
    ];
  if (request.status === 'pending') {
    return [
      context(`Request ${code(request.id)} · waiting for approval · ${waitingUntilText(request)}`),
      {
        type: 'actions',
        block_id: 'change_actions',
        elements: [...decisionButtons(request.id), cancelButton(request.id)],
      },
    ];
  }
  // Approved, waiting for its time: its requester, or whoever may approve it, may still call it off,
  // from either channel (the requester, told "unless you cancel it before", may not be in the other).
  if (request.status === 'scheduled')
    return [
      section(outcomeText(request)),
      context(`Request ${code(request.id)}`),
      { type: 'actions', block_id: 'change_actions', elements: [cancelButton(request.id, 'Cancel before its time')] },
    ];
  return [
    section(outcomeText(request)),
    context(`Request ${code(request.id)}`),
    ...(offersUndo(request) ? [undoButton(request)] : []),
    ...(offersAskAgain(request) ? [askAgainButton(request.id)] : []),
  ];
}

export const ACTION_ASK_AGAIN = 'change_ask_again';

/** A plan's problems, each sentence once. */
export const problemsText = (problems: ReadonlyArray<{ message: string }>) =>
  `:warning: ${distinctSentences(problems.map((p) => p.message))
    .map(esc)
    .join('\n')}`;

/** Why Ask again did nothing (it files the same change anew, as the service is now). */
export function askAgainRefusedText(
  why: 'not-stale' | 'not-requester' | 'already' | 'service-gone',
  request?: ChangeRequest,
): string {
  switch (why) {
    case 'not-stale':
      return 'Only a request refused because the service changed can be asked again this way. Make a new request instead.';
    case 'not-requester':
      return `Only ${mention(request?.requesterId)}, who asked for it, can ask for it again (with their reason and ticket). Make a request of your own instead.`;
    case 'already':
      return 'It was already asked again: the new request is in the channel.';
    case 'service-gone':
      return 'The service no longer exists, so there is nothing to ask again.';
  }
}

/** A request refused as stale, whose intent was kept: its requester may ask for it again as the service is now. */
export function offersAskAgain(request: ChangeRequest): boolean {
  return request.status === 'failed' && request.outcome?.stale === true && request.plan.intent !== undefined;
}

export function askAgainButton(requestId: string): Block {
  return {
    type: 'actions',
    block_id: 'change_ask_again',
    elements: [
      {
        type: 'button',
        action_id: ACTION_ASK_AGAIN,
        text: { type: 'plain_text', text: 'Ask again (requester)' },
        value: requestId,
      },
    ],
  };
}

export function cancelButton(requestId: string, label = 'Cancel (requester)') {
  return {
    type: 'button' as const,
    action_id: ACTION_CANCEL,
    text: { type: 'plain_text' as const, text: label },
    value: requestId,
  };
}

/**
 * Approve and Reject for a request: the same buttons in the channel, a DM and the Home tab. A
 * break-glass review has one, Mark reviewed: an approval by another name, on the same path.
 */
export function decisionButtons(requestId: string, review = false) {
  const approve = {
    type: 'button' as const,
    action_id: ACTION_APPROVE,
    text: { type: 'plain_text' as const, text: review ? 'Mark reviewed' : 'Approve' },
    style: 'primary' as const,
    value: requestId,
  };
  if (review) return [approve];
  return [
    approve,
    {
      type: 'button' as const,
      action_id: ACTION_REJECT,
      text: { type: 'plain_text' as const, text: 'Reject' },
      style: 'danger' as const,
      value: requestId,
    },
  ];
}

const OUTCOME: Record<Exclude<ChangeStatus, 'pending'>, (r: ChangeRequest) => string> = {
  scheduled: (r) =>
    `:alarm_clock: *Scheduled.* ${approvedBy(r)}${when(r)}; it ${appliesAt(r.applyAt ?? r.expiresAt)}, if the service still looks as it does now.`,
  applying: (r) => `:hourglass: ${approvedBy(r)}; applying the change…`,
  applied: (r) =>
    `:white_check_mark: *Applied.* ${approvedBy(r)}${when(r)}${apiRef(r)}${r.outcome?.message ? ` ${esc(r.outcome.message)}` : ''}`,
  failed: (r) =>
    `:x: *Not applied.* ${esc(r.outcome?.message ?? 'The update failed.')} ${approvedBy(r)}${when(r)}${apiRef(r)}`,
  rejected: (r) =>
    `:no_entry: *Rejected* by ${mention(r.decidedBy)}${when(r)}${r.outcome?.rejectedBecause ? `: “${esc(r.outcome.rejectedBecause)}”` : ''}`,
  cancelled: (r) => `:heavy_multiplication_x: *Cancelled* by ${mention(r.decidedBy)}${when(r)}`,
  expired: (r) =>
    r.decidedBy && r.applyAt !== undefined && r.outcome?.message
      ? `:hourglass_flowing_sand: *Expired.* ${esc(r.outcome.message)}`
      : `:hourglass_flowing_sand: *Expired* without approval at ${slackDate(r.expiresAt)}. Ask again if it is still needed.`,
};

export function outcomeText(request: ChangeRequest): string {
  return request.status === 'pending' ? 'Waiting for approval.' : OUTCOME[request.status](request);
}

/** The Mark reviewed button of a break-glass review: an approval by another name, on the same exactly-once path. */
function markReviewedButton(requestId: string): Block {
  return { type: 'actions', block_id: 'change_actions', elements: decisionButtons(requestId, true) };
}

/** Everyone whose approval counted, or the rules that needed none. */
function approvedBy(r: ChangeRequest): string {
  if (r.breakGlass) return `:rotating_light: Break-glass by ${mention(r.decidedBy)}, without approval`;
  // A revert is approved by nobody: the bot files it at the grant's time, or someone clicks Revert now.
  if (r.revertOf)
    return r.requesterId === BOT_ACTOR
      ? 'Reverted by the bot at its time, without approval'
      : `Revert now by ${mention(r.requesterId)}, without approval`;
  const approvals = r.approvals ?? [];
  if (approvals.length > 0) return `Approved by ${people(approvals.map((a) => a.userId))}`;
  const requirements = r.requirements ?? [];
  if (requirements.length > 0 && requirements.every((q) => q.approvals === 0)) {
    return `No approval needed (${requirements.map((q) => bold(q.rule)).join(', ')})`;
  }
  return `Approved by ${mention(r.decidedBy)}`;
}

const when = (r: ChangeRequest) => (r.decidedAt ? ` at ${slackDate(r.decidedAt)}` : '');

const apiRef = (r: ChangeRequest) => apiReference({ status: r.outcome?.status, requestId: r.outcome?.apiRequestId });

/** The pending requests of a channel, for `pending`. */
export function pendingBlocks(requests: ChangeRequest[]): Block[] {
  if (requests.length === 0) return [section('No change request is waiting for approval in this channel.')];
  const lines = requests.map(
    (r) =>
      `• ${code(r.id)} ${serviceRef(r.plan.serviceName, r.plan.serviceId)} by ${mention(r.requesterId)}: ${r.reviewOf ? `review of break-glass ${code(r.reviewOf)}` : esc(changeSummary(r.plan.changes))}${justificationPhrase(r)}${pendingState(r)}`,
  );
  return [
    header(`Pending change requests (${requests.length})`),
    ...packLines(lines, LIMITS.messageBlocks - 1, (n) => `_…and ${n} more_`),
  ];
}

/** Where a request listed by `pending` stands: its approvals and expiry, or its time once approved. */
function pendingState(r: ChangeRequest): string {
  if (r.status === 'scheduled') return ` · approved, ${appliesAt(r.applyAt ?? r.expiresAt)}`;
  return `${r.requirements ? ` · ${progressSummary(r, r.requirements)}` : ''} · ${waitingUntilText(r)}`;
}

/** The public message of a change request: its summary line as text, its blocks with buttons. */
export function requestMessage(request: ChangeRequest, linkOnly = false): { text: string; blocks: Block[] } {
  const service = serviceRefPlain(request.plan.serviceName, request.plan.serviceId, 200);
  const text = `Change request ${request.id} for ${service}: ${changeSummary(request.plan.changes)} (${request.status})`;
  return { text: esc(text), blocks: changeRequestBlocks(request, linkOnly) };
}

/** The message in the requester's channel: the request itself, or its record without buttons when decided elsewhere. */
export function requesterMessage(request: ChangeRequest): { text: string; blocks: Block[] } {
  return requestMessage(request, approvalChannelOf(request) !== undefined);
}

/** What the approval channel's message becomes when the request could not be posted in the requester's channel. */
export function withdrawnInApprovalChannel(request: ChangeRequest): { text: string; blocks: Block[] } {
  const text = `:x: Request ${code(request.id)} was withdrawn: it could not be posted in ${channelRef(request.channelId)}, so nobody needs to decide it.`;
  return { text: `Request ${request.id} was withdrawn`, blocks: [section(text)] };
}

export function alreadyDecidedText(request: ChangeRequest): string {
  if (request.status === 'applying')
    return `This change request is being applied right now, so your click changed nothing. ${outcomeText(request)}`;
  if (request.status === 'scheduled')
    return `This change request is already approved and waits for its time; only its requester or someone who may approve it can still cancel it, so your click changed nothing. ${outcomeText(request)}`;
  return `This change request is already settled, so your click changed nothing. ${outcomeText(request)}`;
}

function outcomeOrWaiting(request: ChangeRequest): string {
  return request.status === 'pending' ? 'Waiting for approval.' : outcomeText(request);
}
