/**
 * The approval flow's sentences: what is recorded as a request's outcome, what the person who
 * clicked is told, what goes to the audit trail and the log. The flow (core/approval/step.ts)
 * only names what happened; every word for people is here.
 */
import { appliesAt, SCHEDULE_STARTED_TEXT, scheduleMissedText } from './scheduled.js';
import type { AuditNote, Failure, FlowOutcome, FlowReply, LogFact } from '../approval/types.js';
import type { ChangeOutcome, ChangeRequest, OperationResult } from '../change/types.js';
import type { CloudApiError } from '../service/api-error.js';
import { alreadyDecidedText } from './change.js';
import { cloudErrorSentence, UNEXPECTED_IN_BOT } from './errors.js';
import { code, esc, serviceRefPlain } from './mrkdwn.js';
import { approvalNotCountedText, approvalRecordedText, lackingText } from './policy.js';
import { channelRef } from './people.js';
import { grantLogText, grantReplyText } from './grant.js';

export const LOST_BEFORE_SENDING_TEXT =
  'This bot replica was held up long enough to lose its hold on the request (it was paused or cut off from its store), so it sent nothing to ClickHouse Cloud. Another replica settles the request and updates its message; look there.';
export const LOST_AFTER_SENDING_TEXT =
  'Another bot replica took this request over while it was being applied; it checks the service and updates the request message with the outcome.';
/** Appended to the audit message of the approval that completes a request. */
export const COMPLETES_TEXT = 'The last approval needed: applying the change.';
/** The same for a break-glass review: marking it sends nothing, so it must not read as applying anything. */
export const REVIEW_COMPLETES_TEXT = 'The review it needed: marked reviewed; nothing is sent to ClickHouse Cloud.';

/** What the audit says the approval completing this request does. */
export const completesText = (request: Pick<ChangeRequest, 'reviewOf'>): string =>
  request.reviewOf ? REVIEW_COMPLETES_TEXT : COMPLETES_TEXT;

const SETTLED_NOTE =
  'The bot replica applying this change stopped after sending it to ClickHouse Cloud; it was checked against the service afterwards';

/** The request's outcome as stored: a sentence, the API's status and request id. */
export function outcomeRecord(outcome: FlowOutcome): ChangeOutcome {
  const operations = outcome.results ? { operations: outcome.results } : {};
  if (outcome.status === 'applied') {
    const delivery = deliveryText(outcome.service?.parts?.password?.delivery);
    const message = [APPLIED_NOTES[outcome.note ?? 'none'], delivery].filter(Boolean).join(' ');
    return {
      ...(outcome.apiRequestId ? { apiRequestId: outcome.apiRequestId } : {}),
      ...(message ? { message } : {}),
      ...operations,
    };
  }
  const record = failureRecord(outcome.failure);
  const parts = outcome.results ? partsText(outcome.results) : '';
  return { ...record, ...(parts ? { message: `${record.message ?? ''} ${parts}`.trim() } : {}), ...operations };
}

/** Where a reset password went (never the password): the audit and the request say it. */
function deliveryText(delivery: { to: string; delivered: boolean } | undefined): string {
  if (delivery === undefined) return '';
  if (delivery.delivered)
    return `The new password was delivered to the requester (${delivery.to}) alone, by DM with a Reveal button (15 minutes, once).`;
  return `The password was reset, but the bot could not DM the requester (${delivery.to}) the new one, so nobody has it: reset it again.`;
}

const APPLIED_NOTES: Record<NonNullable<Extract<FlowOutcome, { status: 'applied' }>['note']> | 'none', string> = {
  none: '',
  'confirmed-by-reread': 'Confirmed by re-reading the service after the API call did not answer cleanly.',
  'settled-shows': `${SETTLED_NOTE}, which shows it.`,
  resumed:
    'The bot replica applying this change stopped between its operations; another replica checked the service and sent the rest.',
};

function failureRecord(failure: Failure): ChangeOutcome {
  switch (failure.kind) {
    case 'lock-timeout':
      return {
        message: `Another change to this service was still being applied after ${Math.round(failure.waitedMs / 1000)} s, so this one was not applied. Look at the service with the show command, then ask again.`,
      };
    case 'read-before-apply':
      if (failure.organizationGone !== undefined)
        return {
          message: `Its organization ${failure.organizationGone} is no longer in the bot's list of organizations, so nothing was changed. An operator must put it back (and reload the bot); then ask again.`,
        };
      return apiFailure(failure.error, 'Could not re-read the service before applying, so nothing was changed');
    case 'service-gone':
      return { message: `The ${failure.what ?? 'service'} no longer exists, so nothing was changed.` };
    case 'stale':
      return {
        message: `The ${failure.what ?? 'service'} changed since this request was made (${failure.labels.join(', ')}), so it was not applied. Make a new request against the ${failure.what ?? 'service'} as it is now.`,
        stale: true,
      };
    case 'denied-now':
      return {
        message: `The service now falls under the policy rule "${failure.rule}": ${failure.text} It was not applied.`,
      };
    case 'rules-grew':
      return {
        message: `The service now matches the policy rule(s) ${failure.rules.map((r) => `"${r}"`).join(', ')}, which ask for more approvals than this request was given (its tags or the change's risks moved since it was asked), so it was not applied. Ask again: the new request shows what it needs.`,
      };
    case 'unjustified-now': {
      const { what, add } = lackingText(failure.lacking, 'plain');
      return {
        message: `${what}, which this request was not given (the service's tags or the rules changed since it was asked), so it was not applied. Ask again with ${add}.`,
      };
    }
    case 'frozen':
      return {
        message: `The policy rule "${failure.rule}" froze changes before this one could be applied: ${failure.reason} (until ${utcText(failure.until)}). It was not applied; ask again after the freeze, or break glass if it cannot wait.`,
      };
    case 'outside-window':
      return {
        message: `It was approved after the maintenance window of the policy rule(s) ${failure.rules.map((r) => `"${r}"`).join(', ')} closed, so it was not applied outside it. Ask again: it will be scheduled for the next opening${failure.opensAt === undefined ? '' : ` (${utcText(failure.opensAt)})`}.`,
      };
    case 'api-refused':
      return apiFailure(failure.error, 'ClickHouse Cloud did not apply the change');
    case 'unknown-outcome':
      return apiFailure(
        failure.error,
        'The outcome is unknown: look at the service with the show command before asking again',
      );
    case 'not-shown':
      return apiFailure(
        failure.error,
        'The change was not applied: the service still does not show it a few seconds later. Look at it with the show command before asking again',
      );
    case 'stopped-before-sending':
      return {
        message:
          'The bot replica applying this change stopped (or lost its hold on it) before sending it to ClickHouse Cloud, so nothing was changed. Ask again if it is still needed.',
      };
    case 'settled-not-shown':
      return { message: `${SETTLED_NOTE}, which does not show it. Ask again if it is still needed.` };
    case 'settled-read-failed':
      return apiFailure(
        failure.error,
        `${SETTLED_NOTE}, but the service could not be read; look at it with the show command`,
      );
  }
}

/** A moment as plain text (outcome messages are escaped, so Slack's date markup cannot be used there). */
function utcText(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function apiFailure(error: CloudApiError | undefined, what: string): ChangeOutcome {
  if (!error) return { message: `${what}: ${UNEXPECTED_IN_BOT}` };
  return {
    message: `${what}: ${cloudErrorSentence(error)}`,
    ...(error.status === undefined ? {} : { status: error.status }),
    ...(error.requestId ? { apiRequestId: error.requestId } : {}),
  };
}

const ENDPOINT_NAMES: Record<OperationResult['endpoint'], string> = {
  update: 'the settings update',
  replicaScaling: 'the scaling change',
  state: 'the power change',
  part: 'the change to a part of the service',
  member: "the member's roles",
  apiKey: 'the API key change',
  delete: 'the deletion',
};

/** "Done before this: the settings update." for a request of several operations. */
function partsText(results: readonly OperationResult[]): string {
  const done = results.filter((r) => r.status === 'applied').map((r) => ENDPOINT_NAMES[r.endpoint]);
  return done.length > 0 ? `Done before this: ${done.join(', ')}.` : 'None of its parts was applied.';
}

/** What the person who clicked is told (mrkdwn), or undefined when the message says it all. */
export function replyText(reply: FlowReply): string | undefined {
  switch (reply.kind) {
    case 'filed':
      return undefined;
    case 'not-posted':
      if (reply.notInChannel && reply.channelId)
        return `:x: The bot is not a member of ${channelRef(reply.channelId)}, where this request would be decided, so it was not created. Invite it there with \`/invite @ClickHouse\` and try again.`;
      return reply.notInChannel
        ? ':x: The bot cannot post in this channel, so the change request was not created. Invite it with `/invite @ClickHouse` (or use a public channel) and try again.'
        : ':x: The change request could not be posted in the channel, so it was not created. Try again in a minute.';
    case 'not-recorded':
      return ':x: The request was posted but the bot could not record it, so it was withdrawn. Try again in a minute.';
    case 'gone-long-ago':
      return 'This change request no longer exists: it expired a long time ago. Ask again if it is still needed.';
    case 'gone':
      return 'This change request no longer exists.';
    case 'already-decided':
      return alreadyDecidedText(reply.request);
    case 'revert-needs-no-decision':
      return 'This is a revert the bot applies by itself: it needs no decision, so your click changed nothing.';
    case 'name-not-typed':
      return `:keyboard: This change cannot be taken back: approve it from the form that asks you to type the name of ${esc(reply.name)} (click Approve on the request). Nothing was changed.`;
    case 'review-only':
      return 'A break-glass change has already happened: its review can only be marked reviewed (by an approver of its rules), not rejected or cancelled. If it was wrong, Undo it or file the change that puts it right.';
    case 'not-allowed':
      return `:no_entry_sign: ${reply.reason} Nothing was changed.`;
    case 'approval-not-counted':
      return approvalNotCountedText(reply.request, reply.reason);
    case 'approval-recorded':
      return approvalRecordedText(reply.request);
    case 'scheduled':
      return `:alarm_clock: Approved. Request ${code(reply.request.id)} ${appliesAt(reply.request.applyAt ?? reply.request.expiresAt)}, if the service still looks as it does now; its requester may cancel it until then.`;
    case 'expired':
      return ':hourglass_flowing_sand: This change request has expired, so nothing was changed. Ask again if it is still needed.';
    case 'lost-before-sending':
      return LOST_BEFORE_SENDING_TEXT;
    case 'lost-after-sending':
      return LOST_AFTER_SENDING_TEXT;
    case 'outcome-not-recorded':
      return 'The bot could not record the outcome of this request. Look at the service with the show command before doing anything else.';
    default:
      return grantReplyText(reply);
  }
}

/** The audit message of a transition made for a reason of the bot's own. */
export function auditNoteText(note: AuditNote): string {
  switch (note.kind) {
    case 'auto-approved':
      return `No approval needed under the policy rule(s): ${note.rules.join(', ')}.`;
    case 'withdrawn-unposted':
      return 'The request could not be posted in the channel.';
    case 'withdrawn-unrecorded':
      return 'The bot could not record this request, so it was withdrawn. Ask again in a minute.';
    case 'rejected-because':
      return `Reason: ${note.reason}`;
    case 'break-glass':
      return `Break-glass: applied without approval, windows or freezes. Reason: ${note.reason}`;
    case 'schedule-missed':
      return scheduleMissedText(note.dueAt, note.graceMs);
    case 'schedule-started':
      return SCHEDULE_STARTED_TEXT;
  }
}

/**
 * What a transition made for such a reason records as the request's outcome: a withdrawal says
 * why, a rejection keeps its rejecter's reason; an auto-approval is in the audit only.
 */
export function noteOutcome(note: AuditNote): ChangeOutcome | undefined {
  switch (note.kind) {
    case 'auto-approved':
    case 'break-glass':
    case 'schedule-started':
      return undefined;
    case 'rejected-because':
      return { rejectedBecause: note.reason };
    default:
      return { message: auditNoteText(note) };
  }
}

/** One log line about a request (plain text; the logger redacts and structures it). */
export function logText(fact: LogFact, requestId: string, channelId: string, cause?: string): string {
  const because = cause ? `: ${cause}` : '';
  switch (fact.kind) {
    case 'not-posted':
      return `change ${requestId}: could not post it in ${channelId}${because}`;
    case 'message-ts-not-recorded':
      return `change ${requestId}: posted but its message could not be recorded${because}`;
    case 'taken-over-before-recorded':
      return `change ${requestId}: taken over by another replica before its outcome was recorded here (${fact.status}${fact.apiRequestId ? `, API request ${fact.apiRequestId}` : ''})`;
    case 'outcome-not-recorded':
      return `change ${requestId}: could not record outcome ${fact.status}`;
    default:
      return grantLogText(fact, requestId);
  }
}

/** Posted in the thread when the API confirmed a change another replica had recorded as not applied. */
export function correctionText(requestId: string, apiRequestId: string | undefined): string {
  return esc(
    `:warning: Correction for change ${requestId}: ClickHouse Cloud confirmed it was applied${apiRequestId ? ` (API request ${apiRequestId})` : ''}, after another bot replica had recorded it as not applied. Look at the service with the show command.`,
  );
}

/** The fallback text of the resulting service's post. */
export function appliedResultText(requestId: string, service: { name: string; id: string }): string {
  return esc(`Applied change ${requestId} to ${serviceRefPlain(service.name, service.id, 200)}`);
}

/** The title of the resulting service's post: its name and id, then the change. */
export function appliedResultTitle(requestId: string, service: { name: string; id: string }): string {
  return `${serviceRefPlain(service.name, service.id)}: after change ${requestId}`;
}
