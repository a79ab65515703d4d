/**
 * Approvals against requirements: who counts for which rule, how many more each rule needs, and
 * who may still give them. An approval counts for every requirement its author is eligible for,
 * once per request; the requester never counts (except under the default rule with
 * ALLOW_SELF_APPROVAL, today's behaviour).
 */
import type { Approval, Requirement } from './types.js';

/** Group membership as resolved by the adapter (Slack user groups), asked per group id. */
export type InGroup = (groupId: string) => boolean;

export const isGroupId = (id: string) => id.startsWith('S');

/** A Slack user (U…, or W… on Enterprise Grid): only a person can be written to or have a Home tab. */
export const isUserId = (id: string) => /^[UW][A-Z0-9]{2,}$/.test(id);

/**
 * `inChannel`: whether the person is in the channel the request is decided in. A click there is
 * from a member (Slack shows its buttons to members only); one from the Home tab or a DM is not,
 * and a rule open to anyone in the channel counts them only if they are in it.
 */
export function isEligible(
  requirement: Requirement,
  userId: string,
  requesterId: string,
  inGroup: InGroup,
  inChannel = true,
): boolean {
  if (userId === requesterId && !requirement.selfApproval) return false;
  if (requirement.approvers.length === 0) return inChannel;
  if (requirement.approvers.includes(userId)) return true;
  return requirement.approvers.some((id) => isGroupId(id) && inGroup(id));
}

/** Indices of the requirements a person's approval would count for. */
export function eligibleFor(
  requirements: readonly Requirement[],
  userId: string,
  requesterId: string,
  inGroup: InGroup,
  inChannel = true,
): number[] {
  return requirements.flatMap((requirement, index) =>
    requirement.approvals > 0 && isEligible(requirement, userId, requesterId, inGroup, inChannel) ? [index] : [],
  );
}

/** The user groups whose membership decides a click on these requirements. */
export function groupsOf(requirements: readonly Requirement[]): string[] {
  return [...new Set(requirements.flatMap((r) => r.approvers.filter(isGroupId)))];
}

export interface RuleProgress {
  index: number;
  requirement: Requirement;
  /** Who approved for this rule, in the order the store recorded them. */
  approvedBy: string[];
  /** How many more approvals the rule needs (0 when met). */
  missing: number;
}

export function ruleProgress(requirements: readonly Requirement[], approvals: readonly Approval[]): RuleProgress[] {
  return requirements.map((requirement, index) => {
    const approvedBy = approvals.filter((a) => a.counts.includes(index)).map((a) => a.userId);
    return { index, requirement, approvedBy, missing: Math.max(0, requirement.approvals - approvedBy.length) };
  });
}

/**
 * The channel a request is decided in: the first rule asking for approvals that names one, unless
 * it is the requester's own channel. Derived from the rules fixed with the request, never stored.
 */
export function approvalChannelOf(request: {
  channelId: string;
  requirements?: readonly Requirement[] | undefined;
}): string | undefined {
  const channel = request.requirements?.find((r) => r.approvals > 0 && r.channel)?.channel;
  return channel && channel !== request.channelId ? channel : undefined;
}

/** The channel a request is decided in, whose members a rule open to anyone in the channel means. */
export function decidingChannelOf(request: {
  channelId: string;
  requirements?: readonly Requirement[] | undefined;
}): string {
  return approvalChannelOf(request) ?? request.channelId;
}

/** True when every requirement has its approvals; the store decides this atomically with the same count. */
export function isComplete(requirements: readonly Requirement[], approvals: readonly Approval[]): boolean {
  return ruleProgress(requirements, approvals).every((p) => p.missing === 0);
}

/** The requirements that still need approvals. */
export function unmet(requirements: readonly Requirement[], approvals: readonly Approval[]): RuleProgress[] {
  return ruleProgress(requirements, approvals).filter((p) => p.missing > 0);
}

/**
 * Who may still approve for a rule: its listed users who have not approved (and are not the
 * requester) and its groups; undefined means anyone in the channel but the requester and those
 * who already approved.
 */
export function stillEligible(progress: RuleProgress, requesterId: string): string[] | undefined {
  const { requirement, approvedBy } = progress;
  if (requirement.approvers.length === 0) return undefined;
  return requirement.approvers.filter(
    (id) => isGroupId(id) || (!approvedBy.includes(id) && (id !== requesterId || requirement.selfApproval === true)),
  );
}

export type ApprovalClick =
  | { kind: 'counts'; counts: number[] }
  | { kind: 'already-approved' }
  /** The person is eligible for no requirement still missing approvals. */
  | { kind: 'not-eligible'; requester: boolean };

export function judgeApproval(
  requirements: readonly Requirement[],
  approvals: readonly Approval[],
  userId: string,
  requesterId: string,
  inGroup: InGroup,
  inChannel = true,
): ApprovalClick {
  if (approvals.some((a) => a.userId === userId)) return { kind: 'already-approved' };
  const counts = eligibleFor(requirements, userId, requesterId, inGroup, inChannel);
  const open = new Set(unmet(requirements, approvals).map((p) => p.index));
  if (!counts.some((index) => open.has(index))) return { kind: 'not-eligible', requester: userId === requesterId };
  return { kind: 'counts', counts };
}

/** Anyone eligible for any rule of the request may reject it (never the requester: they cancel). */
export function mayReject(
  requirements: readonly Requirement[],
  userId: string,
  requesterId: string,
  inGroup: InGroup,
  inChannel = true,
): boolean {
  if (userId === requesterId) return false;
  return requirements.some((r) => r.approvals > 0 && isEligible(r, userId, requesterId, inGroup, inChannel));
}
