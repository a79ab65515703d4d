/**
 * Who may approve or reject a change request. The request carries its requirements (the
 * POLICY_FILE rules that matched when it was made, or the default: one approval from APPROVERS);
 * approvers are user ids (U...) and user group ids (S...). Groups are resolved through Slack and
 * cached, since membership changes rarely and a click must be answered fast.
 */
import type { ChangePlan, ChangeRequest } from '../core/change/types.js';
import { defaultRequirement, evaluatePolicy } from '../core/policy/evaluate.js';
import { requestFacts } from '../core/policy/facts.js';
import { withEscalation } from '../core/policy/nudges.js';
import { groupsOf, isEligible, isGroupId, judgeApproval, mayReject } from '../core/policy/progress.js';
import type { Policy, PolicyDefaults, Requirement } from '../core/policy/types.js';
import { breakGlassMaxMs, isListed, reviewRequirement, type BreakGlassTerms } from '../core/policy/breakglass.js';
import { approverLabel } from '../core/render/people.js';
import { notEligibleText, requirementsOf, stillNeededText } from '../core/render/policy.js';
import type { ServiceRecord } from '../core/service/schema.js';
import type { ApprovalPolicy, Decision, Ruling, Verdict } from '../ports/approval-policy.js';
import { MessengerError, type Messenger } from '../ports/messenger.js';

export interface ApproverPolicyOptions {
  approvers: readonly string[];
  allowSelfApproval: boolean;
  messenger: Pick<Messenger, 'groupMembers'>;
  /** The rules in force (POLICY_FILE, reloaded on SIGHUP); none = the default for every request. */
  policy?: () => Policy | undefined;
  groupCacheMs?: number;
  now?: () => number;
}

/** Membership of the groups a click depends on; groups Slack would not tell about are listed. */
interface Membership {
  inGroup: (groupId: string) => boolean;
  unknown: string[];
}

export class ApproverPolicy implements ApprovalPolicy {
  private readonly groups = new Map<string, { members: Promise<Set<string>>; fetchedAt: number }>();
  private readonly now: () => number;
  private readonly defaults: PolicyDefaults;

  constructor(private readonly options: ApproverPolicyOptions) {
    this.now = options.now ?? Date.now;
    this.defaults = { approvers: options.approvers, allowSelfApproval: options.allowSelfApproval };
  }

  rulesFor(service: ServiceRecord, plan: ChangePlan, temporary = false): Ruling {
    const policy = this.options.policy?.();
    const decision = evaluatePolicy(policy, requestFacts(service, plan, temporary), this.defaults);
    return { decision, ...(policy ? { digest: policy.digest } : {}) };
  }

  async check(decision: Decision, userId: string, request: ChangeRequest): Promise<Verdict> {
    if (decision === 'cancel') return this.mayCancel(userId, request);
    const requirements = this.requirementsNow(request);
    if (decision === 'reject' && userId === request.requesterId) {
      return { allowed: false, reason: 'This is your own request: use Cancel to withdraw it.' };
    }
    // An approval reads the groups afresh: someone just removed from a group must not approve.
    const membership = await this.membership(userId, requirements, { fresh: decision === 'approve' });
    if (decision === 'reject') {
      if (mayReject(requirements, userId, request.requesterId, membership.inGroup)) return { allowed: true };
      return refusal(
        membership,
        `Only people who can approve this request can reject it: ${whoCanApprove(requirements)}.`,
      );
    }
    // An extension is never approved by the person whose access it prolongs (unless self-approval is on).
    const askedBy = userId === request.beneficiaryId ? request.beneficiaryId : request.requesterId;
    const click = judgeApproval(requirements, request.approvals ?? [], userId, askedBy, membership.inGroup);
    if (click.kind === 'counts') return { allowed: true, counts: click.counts };
    if (click.kind === 'already-approved')
      return { allowed: false, reason: `You already approved this request. ${stillNeededText(request, requirements)}` };
    return refusal(membership, notEligibleText(request, requirements, click.requester));
  }

  mayAct(userId: string, request: ChangeRequest): Promise<Verdict> {
    return this.requesterOrApprover(
      userId,
      request,
      (anyone) => `Only the person who asked for this change${anyone} can do this.`,
    );
  }

  /**
   * Allowed for the requester and for anyone who may approve the request (its rules as they stand,
   * groups read afresh); otherwise refused with `refused`, given " or someone who may approve it (…)".
   */
  private async requesterOrApprover(
    userId: string,
    request: ChangeRequest,
    refused: (orApprovers: string) => string,
  ): Promise<Verdict> {
    if (userId === request.requesterId) return { allowed: true };
    // A rule asking for no approval names nobody who may approve (its empty list is not "anyone"):
    // with no rule asking for one, the default's approvers are the ones, as for a break-glass review.
    const deciding = this.requirementsNow(request).filter((r) => r.approvals > 0);
    const requirements = deciding.length > 0 ? deciding : [defaultRequirement(this.defaults)];
    const membership = await this.membership(userId, requirements, { fresh: true });
    if (requirements.some((r) => isEligible(r, userId, request.requesterId, membership.inGroup)))
      return { allowed: true };
    const who = whoCanApprove(requirements);
    return refusal(membership, refused(who ? ` or someone who may approve it (${who})` : ''));
  }

  async breakGlassTerms(userId: string): Promise<BreakGlassTerms> {
    const policy = this.options.policy?.();
    const list = policy?.breakglass ?? [];
    const maxMs = breakGlassMaxMs(policy);
    if (list.includes(userId)) return { list, maxMs, listed: true };
    // Only the groups could still list them: read afresh, as for an approval (a group Slack will not list counts nobody).
    const members = new Map(
      await Promise.all(
        list
          .filter(isGroupId)
          .map(async (groupId) => [groupId, await this.members(groupId, true).catch(() => new Set<string>())] as const),
      ),
    );
    return { list, maxMs, listed: isListed(list, userId, (groupId) => members.get(groupId)?.has(userId) ?? false) };
  }

  reviewRequirement(requirements: readonly Requirement[]): Requirement {
    return reviewRequirement(requirements, this.defaults);
  }

  /**
   * Whether an Approve click by this person would count now (the Home tab's "Waiting for you"):
   * the same judgement as a click, on the cached group membership (a Home lists many requests;
   * the click itself reads the groups afresh).
   */
  async mayApprove(userId: string, request: ChangeRequest): Promise<boolean> {
    const requirements = this.requirementsNow(request);
    const membership = await this.membership(userId, requirements, { fresh: false });
    const askedBy = userId === request.beneficiaryId ? request.beneficiaryId : request.requesterId;
    return judgeApproval(requirements, request.approvals ?? [], userId, askedBy, membership.inGroup).kind === 'counts';
  }

  /**
   * The people a request concerns as an approver now: those listed by its rules (escalation
   * included, user groups by their cached members), and those who approved or decided it. A
   * rule open to anyone in the channel names nobody. A group Slack will not list is skipped.
   */
  async approversOf(request: ChangeRequest): Promise<string[]> {
    const people = new Set<string>();
    for (const requirement of this.requirementsNow(request))
      for (const id of requirement.approvers) {
        if (!isGroupId(id)) people.add(id);
        else for (const member of await this.members(id, false).catch(() => new Set<string>())) people.add(member);
      }
    for (const approval of request.approvals ?? []) people.add(approval.userId);
    if (request.decidedBy) people.add(request.decidedBy);
    return [...people];
  }

  /** The request's rules as they stand now: an escalated rule counts its `to` people too. */
  private requirementsNow(request: ChangeRequest): readonly Requirement[] {
    return withEscalation(requirementsOf(request, this.defaults), request.createdAt, this.now());
  }

  /**
   * A waiting request is cancelled by its requester (approvers reject it). One approved and
   * waiting for its time can no longer be rejected, so whoever may approve it may also stop it
   * before its time (the on-call engineer who sees trouble coming), its requester told who did.
   */
  async mayCancel(userId: string, request: ChangeRequest): Promise<Verdict> {
    if (userId === request.requesterId) return { allowed: true };
    if (request.status !== 'scheduled')
      return {
        allowed: false,
        reason: 'Only the person who asked for this change can cancel it. Approvers can Reject it.',
      };
    return this.requesterOrApprover(
      userId,
      request,
      (anyone) => `It is approved and waits for its time: only the person who asked for it${anyone} can cancel it now.`,
    );
  }

  /** Looks up only the groups that could change the answer: those of rules the user is not listed in directly. */
  private async membership(
    userId: string,
    requirements: readonly Requirement[],
    read: { fresh: boolean },
  ): Promise<Membership> {
    const members = new Map<string, Set<string>>();
    const unknown: string[] = [];
    await Promise.all(
      groupsOf(requirements).map(async (groupId) => {
        try {
          members.set(groupId, await this.members(groupId, read.fresh));
        } catch (error) {
          unknown.push(
            `${approverLabel(groupId)} (Slack said: ${error instanceof MessengerError ? error.code : 'no answer'})`,
          );
        }
      }),
    );
    return { inGroup: (groupId) => members.get(groupId)?.has(userId) ?? false, unknown };
  }

  private members(groupId: string, fresh: boolean): Promise<Set<string>> {
    const ttl = this.options.groupCacheMs ?? 5 * 60_000;
    const cached = this.groups.get(groupId);
    if (!fresh && cached && this.now() - cached.fetchedAt < ttl) return cached.members;
    const members = this.options.messenger.groupMembers(groupId).then(
      (ids) => new Set(ids),
      (error: unknown) => {
        this.groups.delete(groupId); // do not cache a failure
        throw error;
      },
    );
    this.groups.set(groupId, { members, fetchedAt: this.now() });
    return members;
  }
}

/** A refusal that may come from a group Slack would not list says so, for whoever runs the bot. */
function refusal(membership: Membership, reason: string): Verdict {
  if (membership.unknown.length === 0) return { allowed: false, reason };
  return {
    allowed: false,
    reason: `${reason} The bot could not check the approver group ${membership.unknown.join(', ')}; whoever runs the bot should check its usergroups:read scope.`,
  };
}

function whoCanApprove(requirements: readonly Requirement[]): string {
  const lists = requirements
    .filter((r) => r.approvals > 0)
    .map((r) =>
      r.approvers.length > 0 ? r.approvers.map(approverLabel).join(', ') : 'anyone in the channel but the requester',
    );
  return [...new Set(lists)].join('; ');
}
