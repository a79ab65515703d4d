import type { ChangePlan, ChangeRequest } from '../core/change/types.js';
import type { Policy, PolicyDecision, PolicyDefaults, Requirement } from '../core/policy/types.js';
import type { BreakGlassTerms } from '../core/policy/breakglass.js';
import type { ServiceRecord } from '../core/service/schema.js';

/**
 * An allowed approval says which of the request's requirements (indices) it counts for; the
 * store records it with them and decides atomically whether it was the last one needed.
 */
import type { Decision, Verdict } from '../core/approval/types.js';
export type { Decision, Verdict };

/**
 * Where a click came from: the channel (or DM) it was clicked in, none for the Home tab. A click
 * in the request's own channel is from a member (Slack shows its buttons to members only); any
 * other is judged by what the person could see and decide there. No origin: not a click (the
 * bot's own calls, or a caller that checked already).
 */
export interface ClickOrigin {
  channelId?: string;
}

/** What the rules in force demand of a new request, and the digest of the file they came from. */
export interface Ruling {
  decision: PolicyDecision;
  digest?: string;
}

/**
 * Who may decide a change request. It sees the whole request (service, fields, requester), so
 * rules per service, per tag or per field fit here without touching the approval flow.
 * approval/approvers.ts (POLICY_FILE rules, else APPROVERS, user groups, self-approval) implements it.
 */
export interface ApprovalPolicy {
  /** The rules a new request must satisfy (fixed with the request), or the rule that refuses it. */
  /** `temporary`: the request is time-boxed, and its revert (which asks nobody) is judged with it. */
  rulesFor(service: ServiceRecord, plan: ChangePlan, temporary?: boolean): Ruling;
  check(decision: Decision, userId: string, request: ChangeRequest, origin?: ClickOrigin): Promise<Verdict>;
  /**
   * Whether this person may act on an applied request's grant (Revert now, Extend, Undo): its
   * requester, or anyone eligible to approve it under its rules, whether or not they approved it.
   */
  mayAct(userId: string, request: ChangeRequest, origin?: ClickOrigin): Promise<Verdict>;
  /**
   * Whether this person could see the request in its channel, for a click from outside it (a click
   * there, or no origin, is allowed): anything said about the request, even that it is settled or
   * may no longer be approved, is said only to someone who could. Group and channel members cached.
   */
  maySee(userId: string, request: ChangeRequest, origin?: ClickOrigin): Promise<Verdict>;
  /**
   * Why the request's channel may not file this change the bot files on someone's behalf (an
   * Extend, an Undo, Ask again: no command passed the channel's guardrails for it), or undefined when it
   * may. Only ORGANIZATIONS_FILE's guardrails answer; without them every channel may.
   */
  followOnRefusal?(request: ChangeRequest): Promise<string | undefined>;
  /** The break-glass list and limit in force, and whether this person is on the list (groups read afresh). */
  breakGlassTerms(userId: string): Promise<BreakGlassTerms>;
  /** The one rule a review of a break-glass change made under these requirements needs. */
  reviewRequirement(requirements: readonly Requirement[]): Requirement;
}

/** The rules in force, for `/clickhouse policy` (approval/policy-file.ts reloads them on SIGHUP). */
export interface ApprovalRules {
  current(): Policy | undefined;
  /** What a request needs when no rule matches (APPROVERS, ALLOW_SELF_APPROVAL). */
  defaults: PolicyDefaults;
}
