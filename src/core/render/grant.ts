/**
 * Words for temporary changes and Undo as the decision function reports them (core/approval/
 * grant.ts): what the person who clicked Revert now, Extend or Undo is told, the log lines, and
 * what a requester is told once a request is filed.
 */
import { REVERT_ATTEMPTS_MAX } from '../change/grant.js';
import type { ChangeRequest } from '../change/types.js';
import type { GrantAction, GrantReply, LogFact } from '../approval/types.js';
import { cloudErrorText } from './errors.js';
import { code, distinctSentences, esc } from './mrkdwn.js';

/**
 * What the requester is told once a request is filed: it waits for approval, or, when no rule
 * asked for one, what became of it (applied, failed, still applying).
 */
export function filedText(request: ChangeRequest, where: string): string {
  const id = code(request.id);
  const rules = (request.requirements ?? []).map((r) => r.rule).join(', ');
  const underRules = rules ? ` under the policy rule(s) ${esc(rules)}` : '';
  switch (request.status) {
    case 'applied':
      return `:white_check_mark: Change request ${id} needed no approval${underRules} and was applied; ${where} shows the result.`;
    case 'failed':
      return `:x: Change request ${id} needed no approval${underRules}, but it was not applied: ${esc(request.outcome?.message ?? 'the update failed.')}`;
    case 'applying':
      return `:hourglass: Change request ${id} needed no approval${underRules} and is being applied; ${where} shows the outcome.`;
    case 'scheduled':
      return `:alarm_clock: Change request ${id} needed no approval${underRules} and is scheduled; ${where} shows it.`;
    default:
      return `:memo: Change request ${id} is posted in ${where} and waits for a colleague's approval.`;
  }
}

/** The answer to Revert now, Extend or Undo (and to a due revert, which nobody reads). */
export function grantReplyText(reply: GrantReply): string {
  switch (reply.kind) {
    case 'revert-record-missing':
      return `:rotating_light: The bot no longer has the record of ${code(reply.originalId)}, so it cannot revert it. Check the service by hand.`;
    case 'not-temporary':
      return 'This is not a temporary change, so there is nothing to revert.';
    case 'grant-inactive':
      return 'This temporary change is no longer active, so there is nothing to revert.';
    case 'revert-service-gone':
      return 'The service of this change no longer exists, so there is nothing to revert.';
    case 'reverting-now':
      return `This temporary change is being reverted right now: see ${code(reply.revertId)} in its thread.`;
    case 'already-reverted':
      return `This temporary change was already reverted (or found changed by someone else): see ${code(reply.revertId)} in its thread.`;
    case 'undo-already-reverted':
      return `:information_source: Nothing is left to undo: the bot already took this temporary change back with ${code(reply.revertId)} (see its thread).`;
    case 'revert-gave-up':
      return `:rotating_light: The bot could not revert ${code(reply.originalId)} after ${reply.attempts} attempts; take the access back by hand (see ${code(reply.lastId)}).`;
    case 'revert-not-yet':
      return `:hourglass_flowing_sand: ${code(reply.originalId)} cannot be reverted right now: ${esc(reply.problems)} The bot tries again shortly.`;
    case 'nothing-left-to-revert':
      return esc(nothingToRevertText(reply.found));
    case 'reverted-now':
      return `:rewind: Reverted ${code(reply.originalId)} now; the thread shows the outcome.`;
    case 'revert-failed-retrying':
      return `:x: The revert of ${code(reply.originalId)} was not applied: ${esc(reply.message ?? 'the update failed.')} The bot tries again shortly; the thread shows the outcome.`;
    case 'grant-not-allowed':
      return `:no_entry_sign: Only the requester or an approver can ${ACTION_VERBS[reply.action]} this change${reply.action === 'revert-now' ? ' now' : ''}. ${reply.reason}`;
    case 'extension-inactive':
      return 'This temporary change is no longer active (it was reverted), so it cannot be extended. Ask for it again if it is still needed.';
    case 'follow-on-open':
      return `:information_source: ${FOLLOW_ON_NAMES[reply.action]} of ${code(reply.originalId)} is already asked for: ${code(reply.openId)}. Approve or cancel that one.`;
    case 'follow-on-being-filed':
      return `:information_source: ${FOLLOW_ON_NAMES[reply.action]} of ${code(reply.originalId)} is being filed right now; look for it in ${reply.inThread ? 'its thread' : 'the channel'}.`;
    case 'undo-not-applied':
      return 'Only an applied change can be undone.';
    case 'follow-on-unjustified':
      return reply.text;
    case 'follow-on-read-failed':
      return `${cloudErrorText(reply.error, `Reading the service to ${reply.action} this change`)} Nothing was filed; click again once it answers.`;
    case 'follow-on-service-gone':
      return reply.action === 'undo'
        ? 'The service of this change no longer exists, so there is nothing to undo.'
        : 'The service of this change no longer exists.';
    case 'nothing-left-to-undo':
      return `:information_source: Nothing is left to undo of ${code(reply.originalId)}: ${esc(reply.leftAlone.join(' ') || 'the service no longer shows it.')}`;
    case 'follow-on-filed': {
      const text = followOnText(reply.outcome, reply.where);
      return reply.leftAlone && reply.outcome.ok
        ? `${text} Left out, already undone: ${esc(reply.leftAlone.join(' '))}`
        : text;
    }
  }
}

/** A revert that found nothing left, in plain text (recorded as its outcome; escaped when shown). */
export function nothingToRevertText(found: readonly string[]): string {
  return `Nothing to revert: ${found.join(' ')}`;
}

const ACTION_VERBS: Record<GrantAction, string> = { 'revert-now': 'revert', extend: 'extend', undo: 'undo' };
const FOLLOW_ON_NAMES = { extend: 'An extension', undo: 'An undo' } as const;

function followOnText(outcome: Extract<GrantReply, { kind: 'follow-on-filed' }>['outcome'], where: string): string {
  if (outcome.ok) return filedText(outcome.request, where);
  if ('text' in outcome) return outcome.text;
  return `:warning: ${distinctSentences(outcome.problems.map((p) => p.message))
    .map(esc)
    .join('\n')}`;
}

type GrantLogFact = Extract<
  LogFact,
  { kind: 'revert-record-missing' | 'revert-gave-up' | 'revert-failed' | 'revert-not-yet' }
>;

/** One log line about a grant's revert (plain text; the logger redacts and structures it). */
export function grantLogText(fact: GrantLogFact, grantId: string): string {
  const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;
  switch (fact.kind) {
    case 'revert-record-missing':
      return `temporary change ${fact.originalId}: its revert is due but the request is no longer in the store, so the bot cannot take the access back. Check the service by hand and remove what ${fact.originalId} granted.`;
    case 'revert-gave-up':
      return `temporary change ${grantId}: ${REVERT_ATTEMPTS_MAX} reverts failed (the last, ${fact.lastId}: ${fact.lastMessage ?? 'no reason given'}); the access it granted is still open. Take it back by hand.`;
    case 'revert-failed':
      return `temporary change ${fact.originalId}: revert ${fact.revertId} failed (${fact.message ?? 'no reason given'}); the bot tries again in ${seconds(fact.retryInMs)}`;
    case 'revert-not-yet':
      return `temporary change ${grantId}: its revert failed (${fact.failures} time(s)): ${fact.problems}; trying again in ${seconds(fact.retryInMs)}`;
  }
}
