/**
 * Break-glass: someone on the policy file's `breakglass` list applies a change at once, skipping
 * approvals, windows and freezes (never a deny rule), with a reason and a `for` no longer than
 * `breakglass_max`; approvers of the rules it skipped review it afterwards. Pure: group
 * membership is looked up by the caller and passed in as `inGroup`.
 */
import type { ChangeRequest } from '../change/types.js';
import { defaultRequirement } from './evaluate.js';
import { isGroupId } from './progress.js';
import {
  DEFAULT_BREAKGLASS_MAX_MS,
  type Policy,
  type PolicyDecision,
  type PolicyDefaults,
  type Requirement,
} from './types.js';

/** Why a break-glass change is refused; core/render/breakglass.ts words it. */
export type BreakGlassRefusal =
  | { kind: 'no-list' }
  | { kind: 'not-listed'; listed: readonly string[] }
  | { kind: 'no-reason' }
  | { kind: 'no-duration'; maxMs: number }
  | { kind: 'too-long'; maxMs: number; askedMs: number }
  | { kind: 'denied'; rule: string; text: string };

/** The name of the one rule a break-glass review needs. */
export const REVIEW_RULE = 'break-glass review';
/** A review waits this long (reminded and escalated meanwhile) before it is recorded as never done. */
export const REVIEW_TTL_MS = 7 * 24 * 3_600_000;

/** Who may break glass under the rules in force, for how long, and whether this person is one of them. */
export interface BreakGlassTerms {
  list: readonly string[];
  maxMs: number;
  listed: boolean;
}

/** The longest a break-glass change may last under this policy. */
export const breakGlassMaxMs = (policy: Policy | undefined) => policy?.breakglassMaxMs ?? DEFAULT_BREAKGLASS_MAX_MS;

/** Whether this person is on the list, directly or through one of its user groups. */
export function isListed(list: readonly string[], userId: string, inGroup: (groupId: string) => boolean): boolean {
  return list.some((id) => id === userId || (isGroupId(id) && inGroup(id)));
}

/**
 * Whether a break-glass change may go ahead: in this order, so that a person not on the list
 * learns nothing about the rules, and a deny rule refuses whatever the rest says.
 */
export function breakGlassRefusal(
  terms: BreakGlassTerms,
  input: {
    reason: string | undefined;
    durationMs: number | undefined;
    decision: PolicyDecision;
    /** The change contains a leak (a key disabled, a password reset): it may be applied for good, without a duration. */
    forGood?: boolean;
  },
): BreakGlassRefusal | undefined {
  const { list, maxMs } = terms;
  const { decision } = input;
  if (list.length === 0) return { kind: 'no-list' };
  if (!terms.listed) return { kind: 'not-listed', listed: list };
  if (decision.kind === 'deny') return { kind: 'denied', rule: decision.rule, text: decision.text };
  if (!input.reason?.trim()) return { kind: 'no-reason' };
  if (input.durationMs === undefined) return input.forGood ? undefined : { kind: 'no-duration', maxMs };
  if (input.durationMs > maxMs) return { kind: 'too-long', maxMs, askedMs: input.durationMs };
  return undefined;
}

/**
 * The one requirement of a break-glass review: one approval from anyone who could have approved
 * the change under the rules it skipped (the default's approvers when none asked for approval),
 * reminded and escalated as those rules say.
 */
export function reviewRequirement(requirements: readonly Requirement[], defaults: PolicyDefaults): Requirement {
  const deciding = requirements.filter((r) => r.approvals > 0);
  const basis = deciding.length > 0 ? deciding : [defaultRequirement(defaults)];
  // A rule open to anyone in the channel makes the review open to anyone but the requester.
  const approvers = basis.some((r) => r.approvers.length === 0) ? [] : [...new Set(basis.flatMap((r) => r.approvers))];
  const remind = basis.map((r) => r.remindMs).filter((ms): ms is number => ms !== undefined);
  const escalate = basis.find((r) => r.escalate)?.escalate;
  const notify = basis.find((r) => r.notify)?.notify;
  return {
    rule: REVIEW_RULE,
    approvals: 1,
    approvers,
    reasons: basis.map((r) => r.rule),
    ...(remind.length > 0 ? { remindMs: Math.min(...remind) } : {}),
    ...(escalate ? { escalate } : {}),
    ...(notify ? { notify } : {}),
  };
}

/** A break-glass change has one review, under one id: filing it twice is refused by the store. */
export const reviewIdOf = (originalId: string): string => `${originalId}-B`;

/**
 * The review of an applied break-glass change: a request in its thread that sends nothing, which
 * an approver of its rules marks reviewed, reminded and escalated like any waiting request.
 */
export function reviewRequestOf(original: ChangeRequest, requirement: Requirement, now: number): ChangeRequest {
  return {
    id: reviewIdOf(original.id),
    channelId: original.channelId,
    requesterId: original.requesterId,
    ...(original.organization ? { organization: original.organization } : {}),
    plan: {
      serviceId: original.plan.serviceId,
      serviceName: original.plan.serviceName,
      update: {},
      operations: [],
      changes: [],
      warnings: [],
      before: {},
    },
    createdAt: now,
    expiresAt: now + REVIEW_TTL_MS,
    status: 'pending',
    requirements: [requirement],
    reviewOf: original.id,
    ...(original.messageTs ? { threadTs: original.messageTs } : {}),
    ...(original.reason ? { reason: original.reason } : {}),
    ...(original.ticket ? { ticket: original.ticket } : {}),
  };
}
