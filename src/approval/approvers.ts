/**
 * Who may approve or reject a change request. The request carries its requirements (the
 * POLICY_FILE rules that matched when it was made, or the default: one approval from APPROVERS);
 * approvers are user ids (U...) and user group ids (S...). Groups are resolved through Slack and
 * cached, since membership changes rarely and a click must be answered fast.
 *
 * A click in the request's channel is from one of its members: Slack shows the buttons to them
 * only. A click from anywhere else (the Home tab, a DM) counts only as far as the person could
 * see and decide the request in its channel: as its requester, a named approver (user or group)
 * of a rule that applies, or a member of that channel (conversations.members, read afresh for a
 * click, cached for the Home tab) where a rule allows anyone in it. Anyone else is refused
 * without a word about the request or its channel.
 */
import type { ChangePlan, ChangeRequest } from '../core/change/types.js';
import { defaultRequirement, evaluatePolicy } from '../core/policy/evaluate.js';
import { requestFacts } from '../core/policy/facts.js';
import { withEscalation } from '../core/policy/nudges.js';
import {
  decidingChannelOf,
  isEligible,
  isGroupId,
  judgeApproval,
  mayReject,
  type ApprovalClick,
} from '../core/policy/progress.js';
import type { Policy, PolicyDefaults, Requirement } from '../core/policy/types.js';
import { breakGlassMaxMs, isListed, reviewRequirement, type BreakGlassTerms } from '../core/policy/breakglass.js';
import { approverLabel } from '../core/render/people.js';
import {
  channelUnreadableText,
  notEligibleText,
  outsiderText,
  requirementsOf,
  stillNeededText,
} from '../core/render/policy.js';
import type { ServiceRecord } from '../core/service/schema.js';
import type { ApprovalPolicy, ClickOrigin, Decision, Ruling, Verdict } from '../ports/approval-policy.js';
import type { Messenger } from '../ports/messenger.js';
import { MemberLists, type Membership, type Outside } from './members.js';

export interface ApproverPolicyOptions {
  approvers: readonly string[];
  allowSelfApproval: boolean;
  messenger: Pick<Messenger, 'groupMembers' | 'channelMembers' | 'userEmail'>;
  /** The rules in force (POLICY_FILE, reloaded on SIGHUP); none = the default for every request. */
  policy?: () => Policy | undefined;
  groupCacheMs?: number;
  /** How long the Home tab trusts a channel's members (a click reads them afresh); default 1 min. */
  channelCacheMs?: number;
  now?: () => number;
}

export class ApproverPolicy implements ApprovalPolicy {
  private readonly now: () => number;
  private readonly defaults: PolicyDefaults;
  private readonly members: MemberLists;

  constructor(private readonly options: ApproverPolicyOptions) {
    this.now = options.now ?? Date.now;
    const { messenger, groupCacheMs, channelCacheMs } = options;
    this.members = new MemberLists({
      messenger,
      now: this.now,
      ...(groupCacheMs === undefined ? {} : { groupCacheMs }),
      ...(channelCacheMs === undefined ? {} : { channelCacheMs }),
    });
    this.defaults = { approvers: options.approvers, allowSelfApproval: options.allowSelfApproval };
  }

  rulesFor(service: ServiceRecord, plan: ChangePlan, temporary = false): Ruling {
    const policy = this.options.policy?.();
    const decision = evaluatePolicy(policy, requestFacts(service, plan, temporary), this.defaults);
    return { decision, ...(policy ? { digest: policy.digest } : {}) };
  }

  async check(decision: Decision, userId: string, request: ChangeRequest, origin?: ClickOrigin): Promise<Verdict> {
    if (decision === 'cancel') return this.mayCancel(userId, request, origin);
    const requirements = this.requirementsNow(request);
    if (decision === 'reject' && userId === request.requesterId) {
      return { allowed: false, reason: 'This is your own request: use Cancel to withdraw it.' };
    }
    // An approval reads the groups afresh: someone just removed from a group must not approve.
    const membership = await this.members.membership(userId, request, requirements, {
      fresh: decision === 'approve',
      outside: outsideOf(request, origin),
    });
    if (!sees(userId, request, requirements, membership)) return unseen(membership);
    if (decision === 'reject') {
      if (mayReject(requirements, userId, request.requesterId, membership.inGroup, membership.inChannel))
        return { allowed: true };
      return refusal(
        membership,
        `Only people who can approve this request can reject it: ${whoCanApprove(requirements)}.`,
      );
    }
    const own = await this.ownRolesRefusal(userId, request);
    if (own) return { allowed: false, reason: own };
    const click = judgeClick(userId, request, requirements, membership);
    if (click.kind === 'counts') return { allowed: true, counts: click.counts };
    if (click.kind === 'already-approved')
      return { allowed: false, reason: `You already approved this request. ${stillNeededText(request, requirements)}` };
    return refusal(membership, notEligibleText(request, requirements, click.requester));
  }

  /**
   * A change to a member's roles is never approved by that member (self-approval or not): their
   * Slack email is compared with the member's. One whose email Slack does not give cannot be told
   * apart, so it is refused too, with what to do.
   */
  private async ownRolesRefusal(userId: string, request: ChangeRequest): Promise<string | undefined> {
    if (request.plan.target?.type !== 'member') return undefined;
    const email = await this.options.messenger.userEmail(userId).catch(() => undefined);
    if (email === undefined)
      return 'Slack does not give me your email, so I cannot tell that this request does not change your own roles: ask an approver whose Slack profile shows their email (the bot needs the users:read.email scope).';
    if (email.trim().toLowerCase() === request.plan.serviceName.trim().toLowerCase())
      return 'This request changes your own roles: someone else must approve it.';
    return undefined;
  }

  mayAct(userId: string, request: ChangeRequest, origin?: ClickOrigin): Promise<Verdict> {
    return this.requesterOrApprover(
      userId,
      request,
      (anyone) => `Only the person who asked for this change${anyone} can do this.`,
      origin,
    );
  }

  async maySee(userId: string, request: ChangeRequest, origin?: ClickOrigin): Promise<Verdict> {
    const outside = outsideOf(request, origin);
    if (!outside) return { allowed: true };
    const requirements = this.requirementsNow(request);
    const membership = await this.members.membership(userId, request, requirements, {
      fresh: false,
      outside: { fresh: false },
    });
    return sees(userId, request, requirements, membership) ? { allowed: true } : unseen(membership);
  }

  /**
   * Allowed for the requester and for anyone who may approve the request (its rules as they stand,
   * groups read afresh); otherwise refused with `refused`, given " or someone who may approve it (…)".
   */
  private async requesterOrApprover(
    userId: string,
    request: ChangeRequest,
    refused: (orApprovers: string) => string,
    origin: ClickOrigin | undefined,
  ): Promise<Verdict> {
    if (userId === request.requesterId) return { allowed: true };
    // A rule asking for no approval names nobody who may approve (its empty list is not "anyone"):
    // with no rule asking for one, the default's approvers are the ones, as for a break-glass review.
    const deciding = this.requirementsNow(request).filter((r) => r.approvals > 0);
    const requirements = deciding.length > 0 ? deciding : [defaultRequirement(this.defaults)];
    const membership = await this.members.membership(userId, request, requirements, {
      fresh: true,
      outside: outsideOf(request, origin),
    });
    if (!sees(userId, request, requirements, membership)) return unseen(membership);
    if (requirements.some((r) => isEligible(r, userId, request.requesterId, membership.inGroup, membership.inChannel)))
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
          .map(
            async (groupId) =>
              [groupId, await this.members.groupMembers(groupId, true).catch(() => new Set<string>())] as const,
          ),
      ),
    );
    return { list, maxMs, listed: isListed(list, userId, (groupId) => members.get(groupId)?.has(userId) ?? false) };
  }

  reviewRequirement(requirements: readonly Requirement[]): Requirement {
    return reviewRequirement(requirements, this.defaults);
  }

  /**
   * Whether an Approve click by this person in the Home tab would count now ("Waiting for you"):
   * the same judgement as that click, on the cached group and channel members (a Home lists many
   * requests; the click itself reads them afresh).
   */
  async mayApprove(userId: string, request: ChangeRequest): Promise<boolean> {
    const requirements = this.requirementsNow(request);
    const membership = await this.members.membership(userId, request, requirements, {
      fresh: false,
      outside: { fresh: false },
    });
    return judgeClick(userId, request, requirements, membership).kind === 'counts';
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
        else
          for (const member of await this.members.groupMembers(id, false).catch(() => new Set<string>()))
            people.add(member);
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
  async mayCancel(userId: string, request: ChangeRequest, origin?: ClickOrigin): Promise<Verdict> {
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
      origin,
    );
  }
}

/** What an Approve click by this person would do, under these rules and memberships. */
function judgeClick(
  userId: string,
  request: ChangeRequest,
  requirements: readonly Requirement[],
  membership: Membership,
): ApprovalClick {
  // An extension is never approved by the person whose access it prolongs (unless self-approval is on).
  const askedBy = userId === request.beneficiaryId ? request.beneficiaryId : request.requesterId;
  const { inGroup, inChannel } = membership;
  return judgeApproval(requirements, request.approvals ?? [], userId, askedBy, inGroup, inChannel);
}

/**
 * A click from somewhere other than the channel the request is decided in (the Home tab, a DM, or
 * the requester's channel when an approval channel decides it: its members see the request there,
 * but only the approval channel's are "anyone in the channel"); undefined for one there.
 */
function outsideOf(request: ChangeRequest, origin: ClickOrigin | undefined): Outside | undefined {
  if (!origin) return undefined;
  if (origin.channelId !== undefined && origin.channelId === decidingChannelOf(request)) return undefined;
  return { fresh: true };
}

/**
 * Whether the person could see the request in its channel: they asked for it (or it prolongs
 * their access), a rule names them (or a group of theirs), or they are in its channel.
 */
function sees(
  userId: string,
  request: ChangeRequest,
  requirements: readonly Requirement[],
  membership: Membership,
): boolean {
  if (userId === request.requesterId || userId === request.beneficiaryId || membership.seesChannel) return true;
  return requirements.some((r) => r.approvers.some((id) => id === userId || (isGroupId(id) && membership.inGroup(id))));
}

/** Someone who could not see the request is told nothing of it, nor of its channel (it may be private). */
function unseen(membership: Membership): Verdict {
  return { allowed: false, reason: outsiderText(membership.channelUnread) };
}

/** A refusal that may come from a group or channel Slack would not list says so, for whoever runs the bot. */
function refusal(membership: Membership, reason: string): Verdict {
  const groups =
    membership.unknown.length === 0
      ? ''
      : ` The bot could not check the approver group ${membership.unknown.join(', ')}; whoever runs the bot should check its usergroups:read scope.`;
  const channel = membership.channelUnread ? ` ${channelUnreadableText(membership.channelUnread)}` : '';
  return { allowed: false, reason: `${reason}${groups}${channel}` };
}

function whoCanApprove(requirements: readonly Requirement[]): string {
  const lists = requirements
    .filter((r) => r.approvals > 0)
    .map((r) =>
      r.approvers.length > 0 ? r.approvers.map(approverLabel).join(', ') : 'anyone in the channel but the requester',
    );
  return [...new Set(lists)].join('; ');
}
