/**
 * The middle layer's own services, as their callers see them: commands and listeners depend on
 * these, never on the classes in approval/, summary/ or scheduler/ (bot.ts wires the classes in).
 */
import type { RuleAsks } from '../core/approval/types.js';
import type { PlanProblem } from '../core/change/plan.js';
import type { Justification } from '../core/policy/justification.js';
import type { ChangeIntent, ChangeRequest, TemporaryTerms } from '../core/change/types.js';
import type { Schedule } from '../core/schedule/types.js';
import type { Timing } from '../core/policy/window.js';
import type { ServiceRecord } from '../core/service/schema.js';
import type { ClickOrigin, Decision } from './approval-policy.js';
import type { Message } from './messenger.js';
import type { AddScheduleResult } from './schedule-store.js';

/**
 * What the person who clicked or typed should be told privately, if anything. `form`: an Extend or
 * Undo a rule asks a reason or ticket of, which the click asks for in a small form.
 */
export type DecisionReply = { text: string; form?: FollowOnForm } | undefined;

export interface FollowOnForm {
  action: 'extend' | 'undo';
  originalId: string;
  asks: readonly RuleAsks[];
}

export type RequestOutcome =
  /** `deferred`: asked outside a maintenance window, it applies at the next opening (core/policy/window.ts). */
  | { ok: true; request: ChangeRequest; deferred?: Extract<Timing, { kind: 'deferred' }> }
  | { ok: false; problems: PlanProblem[] }
  /** `asks`: an extension or undo lacks a reason or ticket these rules ask for (its click asks for them). */
  | { ok: false; text: string; asks?: readonly RuleAsks[] };

export interface NewChangeRequest {
  channelId: string;
  /** The channel's organization, when the bot drives more than one (ORGANIZATIONS_FILE). */
  organization?: string;
  userId: string;
  service: ServiceRecord;
  /**
   * When the API answered the read `service` comes from (epoch ms, wall clock; a cached list's
   * `fetchedAt`). A read of a moment ago is judged on as is at filing, an older or unknown one is
   * read again (core/service/freshness.ts); apply time always reads afresh.
   */
  serviceReadAt?: number;
  intent: ChangeIntent;
  /** `... for DURATION`: the bot reverts the change this long after it is applied. */
  temporary?: TemporaryTerms;
  /** `because "…"` / the form's Reason, and `ticket ID` / its Ticket: a policy rule may require them. */
  reason?: string;
  ticket?: string;
  /** Which words a refusal for a missing reason or ticket points at: the command's or the form's. */
  askedBy?: 'command' | 'form';
  /**
   * `at TIME` (or a window's next opening): approved now, applied at this time (app clock, ms).
   * The request's approval window ends then too (docs/scheduled-changes.md).
   */
  applyAt?: number;
}

/** A break-glass change: applied at once (or refused in a sentence), with the id of its review once filed. */
export type BreakGlassOutcome =
  | { ok: true; request: ChangeRequest; reviewId?: string }
  | { ok: false; problems: PlanProblem[] }
  | { ok: false; text: string };

/** Change requests: asked for, then decided by a click (approval/change-requests.ts). */
export interface ChangeRequestService {
  /** Plans the change against the service, stores it and posts it in the channel for approval. */
  request(input: NewChangeRequest): Promise<RequestOutcome>;
  /**
   * `breakglass …`: someone on the policy's break-glass list applies a temporary change at once,
   * skipping approvals, windows and freezes (never a deny rule); it is announced in the channel
   * and the security channel, and approvers of its rules review it afterwards.
   */
  breakGlass(input: NewChangeRequest): Promise<BreakGlassOutcome>;
  /**
   * `details.reason`: a rejection's reason, as its rejecter typed it in the Reject form;
   * `details.origin`: where the click came from (a click outside the request's channel is judged
   * by what its author could see and decide there). Required: every caller is a click.
   */
  decide(
    decision: Decision,
    id: string,
    userId: string,
    details: { reason?: string; origin: ClickOrigin; confirmedName?: string },
  ): Promise<DecisionReply>;
  /** The name an approver must type to approve it (a delete), asked before the Approve form is opened. */
  nameToConfirm?(id: string): Promise<string | undefined>;
  /** Whether this person's Reject would count now: asked before the Reject form is opened for them. */
  mayReject?(id: string, userId: string, origin: ClickOrigin): Promise<boolean>;
  /** Ask again: a request refused as stale, filed anew by its requester against the service as it is now. */
  /** `origin`: where it was clicked; from outside the request's channels, someone who could not see it there learns nothing. */
  askAgain(id: string, userId: string, origin?: ClickOrigin): Promise<DecisionReply>;
}

/** Temporary changes and Undo (approval/temporary-changes.ts). */
export interface TemporaryChangeService {
  /** A channel's active temporary changes and when each is reverted. */
  list(channelId: string): Promise<Message>;
  /** `origin`: where the click (or the form it opened) came from, as for a decision. */
  revertNow(originalId: string, userId: string, origin: ClickOrigin): Promise<DecisionReply>;
  /** `given`: the reason and ticket typed in the form a rule's `require` opened for the click. */
  extend(originalId: string, userId: string, origin: ClickOrigin, given?: Justification): Promise<DecisionReply>;
  undo(requestId: string, userId: string, origin: ClickOrigin, given?: Justification): Promise<DecisionReply>;
}

export interface SummaryTarget {
  channelId: string;
  filters: string[];
  /** Where this summary's drift baseline lives. */
  snapshotKey: string;
  title?: string;
  /** Posted by a schedule rather than asked for; failure messages say which. */
  scheduled?: boolean;
  /** Who the read is for (the person who asked, or the schedule): the API budget is shared fairly. */
  reader?: string;
  /** Share the daily spend chart in the summary's thread too (a schedule's `chart:on`). */
  chart?: boolean;
}

export type SummaryOutcome = { ok: true } | { ok: false; text: string };

/** Posts a summary of the organization to a channel (summary/summaries.ts). */
export interface SummaryPublisher {
  post(target: SummaryTarget): Promise<SummaryOutcome>;
}

/** Adds and removes schedules so that every replica fires them (scheduler/scheduler.ts). */
export interface ScheduleRegistry {
  /** Adds it only if its id is free and its channel is below `maxPerChannel` (see ScheduleStore). */
  add(schedule: Schedule, limits?: { maxPerChannel: number }): Promise<AddScheduleResult>;
  remove(id: string): Promise<boolean>;
}
