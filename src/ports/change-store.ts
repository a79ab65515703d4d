import type { AuditEntry, NewAuditEntry } from '../core/change/audit.js';
import type { AuditOutbox } from './audit-export.js';
import type { PostedMessage } from './messenger.js';
import type { ChangeOutcome, ChangeRequest, ChangeStatus, OperationResult } from '../core/change/types.js';
import type { Approval } from '../core/policy/types.js';
import type { StoreApprovalResult, StoreTransitionResult } from '../core/approval/types.js';

/**
 * A transition's result: ok, or refused because the request is not in a state it starts from
 * ('conflict'), was pending past its expiry (the store marked it expired instead), the caller's
 * lease was taken over ('lost': its fencing token is outdated, it may record nothing), or missing.
 */
export type TransitionResult = StoreTransitionResult;

export interface Transition {
  from: readonly ChangeStatus[];
  to: ChangeStatus;
  actorId: string;
  now: number;
  outcome?: ChangeOutcome;
  /** Written to the audit stream in the same atomic step as the status change. */
  audit: Omit<NewAuditEntry, 'at' | 'changeId' | 'actorId' | 'channelId' | 'serviceId' | 'serviceName' | 'fence'>;
  /** With `to: 'applying'`: the new owner's lease, granted in the same step (fence + 1). */
  claim?: { owner: string; ttlMs: number };
  /**
   * Leaving "applying": the lease the caller holds. The transition is refused as `lost` when the
   * fence moved on (another replica took over); the service lock it held is released with it.
   */
  holder?: LeaseToken;
}

/** One person's approval, recorded with its audit entry. */
export interface ApprovalStep {
  /** `at` is the time of the click; `counts` the requirements (indices) it counts for. */
  approval: Approval;
  audit: { summary: string; message?: string };
  /** Appended to the audit message when this approval is the last one needed. */
  completesMessage?: string;
  /** When this approval completes the request: the approver's lease, granted in the same step (see Transition). */
  claim?: { owner: string; ttlMs: number };
  /**
   * A scheduled request: when this approval completes it, it moves to "scheduled" (not
   * "applying", no lease) and into the scheduled index at `at` (its applyAt).
   */
  schedule?: { at: number };
}

/**
 * Recorded ('complete' means it was the last one needed and the request is now "applying"), or
 * not: this person already approved, it counts only for rules already met, or as for transitions.
 */
export type ApprovalResult = StoreApprovalResult;

/** Proof of ownership of a request in "applying" (see ApplyLease). */
export interface LeaseToken {
  requestId: string;
  serviceId: string;
  owner: string;
  fence: number;
}

/** Result of asking for a service's lock: held now, held by another request, or our lease is gone. */
export type ServiceLockAttempt = 'acquired' | 'busy' | 'lost';

/**
 * Change requests and their audit trail. Every status change is one atomic compare-and-set
 * (never read-then-write), so two clicks, two approvers or two replicas can never both win.
 */
export interface ChangeStore {
  /** Stores a new pending request and writes its "requested" audit entry. */
  create(request: ChangeRequest): Promise<void>;
  get(id: string): Promise<ChangeRequest | undefined>;
  /** Where the request was posted: in its channel, and in its approval channel when it has one. */
  setMessageTs(id: string, messageTs: string, approvalTs?: string): Promise<void>;
  /**
   * Records one more copy of a request sent elsewhere (an approver's DM), kept as long as the
   * request, so every copy can be shown as the request moves.
   */
  recordCopy(request: Pick<ChangeRequest, 'id' | 'expiresAt'>, copy: PostedMessage): Promise<void>;
  /** The copies recorded for a request, oldest first. */
  copiesOf(id: string): Promise<PostedMessage[]>;
  /** Records where a temporary request's reminder was posted, so its buttons can be taken off later. */
  setReminderTs(id: string, reminderTs: string): Promise<void>;
  /**
   * Moves a request from one of `from` to `to`, atomically. A pending request past its expiry is
   * moved to expired instead (and reported as such) unless `to` is expired itself.
   * Sets decidedBy/decidedAt when leaving pending, and outcome when given.
   */
  transition(id: string, transition: Transition): Promise<TransitionResult>;
  /**
   * Records an approval and, in the same atomic step, decides whether it was the last one needed:
   * then the request moves to "applying" (decidedBy = this approver) and only this caller applies
   * it. Refused when the request is not pending, past its expiry (marked expired), already
   * approved by this person, or when the approval counts for no requirement still unmet.
   */
  addApproval(id: string, step: ApprovalStep): Promise<ApprovalResult>;
  /**
   * Ids of requests in "scheduled" whose applyAt is at or before `now` (app clock), soonest first,
   * at most `limit` (the due-items tick). A transition to "scheduled" (or the approval completing
   * a request with `schedule`) adds them; any transition out of it removes them, atomically.
   */
  dueScheduled(now: number, limit: number): Promise<string[]>;
  /** Pending requests of a channel (made there, or decided there) that have not expired, oldest first, and its scheduled ones. */
  listPending(channelId: string, now: number): Promise<ChangeRequest[]>;
  /** Pending requests of every channel that have not expired (the pending gauge). */
  countPending(now: number): Promise<number>;
  /** Pending requests of every channel that have not expired, oldest first, at most `limit` (reminders). */
  listOpen(now: number, limit: number): Promise<ChangeRequest[]>;
  /**
   * Requests whose next reminder or escalation may be due at `now`, soonest first, at most `limit`:
   * read by score, so a look costs the same with 10 or 10,000 requests waiting. A request enters
   * (due at once) when its message is posted; the nudger reschedules or drops it after each look.
   */
  dueForNudges(now: number, limit: number): Promise<string[]>;
  /** When each request's next reminder or escalation is due; undefined drops it (nothing more to say). */
  scheduleNudges(next: ReadonlyArray<{ id: string; at: number | undefined }>): Promise<void>;
  /** Ids of requests still pending although their expiry has passed, at most `limit` (the expiry sweep). */
  listOverdue(now: number, limit: number): Promise<string[]>;
  /** Requests in "applying", with their leases; the reconciler takes over those whose lease expired. */
  listApplying(): Promise<ChangeRequest[]>;
  /** Extends a held lease (and the service lock held with it); false once the lease is lost or expired. */
  renewLease(token: LeaseToken, ttlMs: number): Promise<boolean>;
  /**
   * Takes the service's lock for this request, so that read -> stale check -> update -> outcome
   * run for one request of a service at a time across replicas. The lock expires with the lease.
   */
  lockService(token: LeaseToken, ttlMs: number): Promise<ServiceLockAttempt>;
  /**
   * The last step before the update goes out: true, and the request is marked as sending, only if
   * the lease and the service lock are held and the lease has at least `minRemainingMs` left.
   */
  confirmSending(token: LeaseToken, minRemainingMs: number): Promise<boolean>;
  /**
   * Records the operations of the request the API confirmed so far (`confirmed`), only while the
   * lease is held: true when recorded, false once the lease is lost or expired.
   */
  recordConfirmed(token: LeaseToken, confirmed: readonly OperationResult[]): Promise<boolean>;
  /** A request in "applying" whose lease has expired passes to `owner` (fence + 1); undefined otherwise. */
  takeOver(
    request: Pick<ChangeRequest, 'id' | 'plan'>,
    owner: string,
    ttlMs: number,
  ): Promise<{ token: LeaseToken; request: ChangeRequest } | undefined>;
  /** Like create, but false (and nothing written) when the id exists: reverts are filed, once, by whichever replica sees them due first. */
  createIfAbsent(request: ChangeRequest): Promise<boolean>;
  /**
   * Applied temporary requests whose revert is due at `now` (the app's clock), soonest first,
   * at most `limit`; each call continues where the last one stopped and wraps to the front, so
   * reverts that stay due (failing on every look) cannot hide the others behind them.
   * A transition to applied schedules them (and an applied extension moves them) atomically.
   */
  dueReverts(now: number, limit: number): Promise<string[]>;
  /** Every scheduled revert, soonest first (for `temporary`). */
  scheduledReverts(): Promise<ScheduledRevert[]>;
  /** When one grant's revert is scheduled, if it is (one lookup, not the whole schedule). */
  revertDueAt(id: string): Promise<number | undefined>;
  /**
   * Moves a scheduled revert that could not be done at `now` to a retry at `dueAt` (one whose
   * record is missing is looked at again later, never dropped), remembering when it was due as
   * planned until it is scheduled anew or forgotten: `now` instead when that is earlier (a Revert
   * now clicked before its time that failed is overdue since then, not since a time to come).
   */
  postponeRevert(id: string, dueAt: number, now: number): Promise<void>;
  /** Drops a temporary request's revert and reminder once its revert is settled. */
  forgetRevert(id: string): Promise<void>;
  /** Temporary requests whose reminder is due at `now`. */
  dueReminders(now: number, limit: number): Promise<string[]>;
  /** True for exactly one caller across replicas: that one posts the reminder. */
  claimReminder(id: string): Promise<boolean>;
  /**
   * True for exactly one caller across replicas within `ttlMs` of the first: of a flood of clicks
   * on one button (Extend, Undo), one files the request and the others are told so.
   */
  claimOnce(key: string, ttlMs: number): Promise<boolean>;
  /** Gives a claim back before its time (the request it guarded was not filed after all). */
  releaseClaim(key: string): Promise<void>;
  /** Notes that this person opened the bot's Home tab now (across replicas). */
  noteHomeOpened(userId: string, at: number): Promise<void>;
  /** Of these people, those who opened the Home tab at `since` or later (the others' Homes are drawn when opened). */
  homesOpenedSince(userIds: readonly string[], since: number): Promise<string[]>;
  /**
   * Newest first. With a channel, only that channel's requests (kept in their own index, so noise
   * elsewhere never pushes them out); with a channel and a service, that service's in that channel.
   */
  readAudit(query: AuditQuery): Promise<AuditEntry[]>;
  /** 'applied' entries written within the window (ms, inclusive), oldest first: drift attribution. */
  readApplied(window: { from: number; to: number }): Promise<AuditEntry[]>;
  /** When the oldest entry still kept was written (entries older than the retention are gone). */
  auditBeginsAt(): Promise<number | undefined>;
  /** The audit trail as an outbox for export (AUDIT_SINKS), over the same entries. */
  auditOutbox(): AuditOutbox;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface AuditQuery {
  channelId?: string;
  serviceId?: string;
  limit: number;
}

/** The audit trail as readers see it (history, drift attribution). */
export type AuditLog = Pick<ChangeStore, 'readAudit' | 'readApplied' | 'auditBeginsAt'>;

/** A scheduled revert: when it is tried next, and, once it failed, when it was due as planned. */
export interface ScheduledRevert {
  id: string;
  dueAt: number;
  overdueSince?: number;
}
