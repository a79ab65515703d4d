/**
 * Single-process ChangeStore, the default when REDIS_URL is unset. It behaves exactly like the
 * Redis store: every check-and-set runs synchronously (no await between reading a status and
 * writing the next one), which on one JS thread is as atomic as a Lua script.
 */
import { approvalChannelOf } from '../../core/policy/progress.js';
import type { AuditEntry, NewAuditEntry } from '../../core/change/audit.js';
import type { ChangeRequest, OperationResult } from '../../core/change/types.js';
import type {
  ApprovalResult,
  ApprovalStep,
  AuditQuery,
  ChangeStore,
  LeaseToken,
  ServiceLockAttempt,
  Transition,
  TransitionResult,
  ScheduledRevert,
} from '../../ports/change-store.js';
import {
  AUDIT_SCAN_MAX,
  DEFAULT_AUDIT_RETENTION_DAYS,
  MEMORY_AUDIT_MAX_ENTRIES,
  DEFAULT_RETENTION_SECONDS,
  EXPIRED_BEFORE_DECISION,
  LEASELESS_TAKEOVER_AFTER_MS,
  MAX_COPIES,
  SENT_LOCK_MS,
  assertCreatable,
  byCreation,
  duplicateRequestError,
  approvalTally,
  recordsDecider,
  neededApprovals,
  requestedAuditEntry,
  retentionDeadline,
  withoutEmptyOptionals,
  auditFields,
} from '../rules.js';
import type { AuditOutbox } from '../../ports/audit-export.js';
import type { PostedMessage } from '../../ports/messenger.js';
import { MemoryAuditOutbox } from './audit-outbox.js';
import { answer } from '../../ports/answer.js';

export interface MemoryChangeStoreOptions {
  /** Finished requests are forgotten this long after expiresAt, like the Redis key TTL. */
  retentionSeconds?: number;
  /** Audit entries are kept this many days (AUDIT_RETENTION_DAYS). */
  auditRetentionDays?: number;
}

/**
 * Copies through JSON, which is what the Redis store does too: callers get values they may
 * mutate freely, and anything JSON would drop (undefined fields) is dropped here as well.
 */
function copyOf<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

export class MemoryChangeStore implements ChangeStore {
  private readonly requests = new Map<string, ChangeRequest>();
  /** Oldest first, with the wall-clock time each was written; kept by age (and capped). */
  private readonly audit: Array<{ entry: AuditEntry; writtenAt: number }> = [];
  private auditSequence = 0;
  private readonly retentionSeconds: number;
  private readonly auditRetentionMs: number;
  private readonly outbox: MemoryAuditOutbox;
  /** serviceId -> "<requestId>:<fence>" and when it expires, like the Redis lock key. */
  private readonly serviceLocks = new Map<string, { holder: string; until: number }>();
  /** The last fence handed out per request: it keeps growing after a lease is released. */
  private readonly fences = new Map<string, number>();
  /** Applied temporary requests -> when they are reverted and reminded (app clock), like the Redis zsets. */
  private readonly reverts = new Map<string, number>();
  /** As the Redis store's scheduled index: requests in "scheduled", by applyAt. */
  private readonly scheduled = new Map<string, number>();
  private readonly reminders = new Map<string, number>();
  /** Waiting requests -> when their next reminder or escalation may be due, like the Redis zset. */
  private readonly nudges = new Map<string, number>();
  /** recordCopy: each request's copies, oldest first. */
  private readonly copies = new Map<string, PostedMessage[]>();
  /** claimOnce: until when each key is claimed. */
  private readonly clicks = new Map<string, number>();

  constructor(options: MemoryChangeStoreOptions = {}) {
    this.retentionSeconds = options.retentionSeconds ?? DEFAULT_RETENTION_SECONDS;
    this.auditRetentionMs = (options.auditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS) * 86_400_000;
    this.outbox = new MemoryAuditOutbox(this.auditRetentionMs);
  }

  async create(request: ChangeRequest): Promise<void> {
    if (!(await this.createIfAbsent(request))) throw duplicateRequestError(request.id);
  }

  createIfAbsent(request: ChangeRequest): Promise<boolean> {
    return answer(() => {
      assertCreatable(request);
      this.forgetRetired();
      if (this.requests.has(request.id)) return false;
      this.requests.set(request.id, copyOf(request));
      this.appendAudit(requestedAuditEntry(request));
      return true;
    });
  }

  get(id: string): Promise<ChangeRequest | undefined> {
    return answer(() => {
      const stored = this.live(id);
      return stored && copyOf(stored);
    });
  }

  setMessageTs(id: string, messageTs: string, approvalTs?: string): Promise<void> {
    return answer(() => {
      const stored = this.live(id);
      if (stored) stored.messageTs = messageTs;
      if (stored && approvalTs !== undefined) stored.approvalTs = approvalTs;
      if (stored?.status === 'pending') this.nudges.set(id, 0);
    });
  }

  recordCopy(request: Pick<ChangeRequest, 'id' | 'expiresAt'>, copy: PostedMessage): Promise<void> {
    return answer(() => {
      this.copies.set(request.id, [...(this.copies.get(request.id) ?? []), { ...copy }].slice(-MAX_COPIES));
    });
  }

  copiesOf(id: string): Promise<PostedMessage[]> {
    return answer(() => (this.copies.get(id) ?? []).map((copy) => ({ ...copy })));
  }

  setReminderTs(id: string, reminderTs: string): Promise<void> {
    return answer(() => {
      const stored = this.live(id);
      if (stored) stored.reminderTs = reminderTs;
    });
  }

  transition(id: string, transition: Transition): Promise<TransitionResult> {
    return answer(() => {
      const stored = this.live(id);
      if (!stored) return { ok: false, reason: 'missing' };
      if (stored.status === 'pending' && transition.to !== 'expired' && transition.now >= stored.expiresAt) {
        stored.status = 'expired';
        this.appendTransitionAudit(stored, transition, { action: 'expired', message: EXPIRED_BEFORE_DECISION });
        return { ok: false, reason: 'expired', request: copyOf(stored) };
      }
      if (!transition.from.includes(stored.status)) return { ok: false, reason: 'conflict', request: copyOf(stored) };
      const { holder, claim } = transition;
      if (
        stored.status === 'applying' &&
        holder &&
        (stored.lease?.owner !== holder.owner || stored.lease.fence !== holder.fence)
      ) {
        return { ok: false, reason: 'lost', request: copyOf(stored) };
      }

      const previous = stored.status;
      stored.status = transition.to;
      if (recordsDecider(previous, transition.to)) {
        stored.decidedBy = transition.actorId;
        stored.decidedAt = transition.now;
      }
      if (transition.outcome) stored.outcome = copyOf(transition.outcome);
      if (previous === 'applying' && transition.to !== 'applying') this.releaseLease(stored, holder?.serviceId);
      const serviceLocked =
        previous !== 'applying' && transition.to === 'applying' && claim ? this.grantLease(stored, claim) : false;
      if (transition.to === 'applied') this.scheduleRevert(stored, transition.now);
      if (previous === 'scheduled' && transition.to !== 'scheduled') this.scheduled.delete(stored.id);
      if (transition.to === 'scheduled') this.scheduled.set(stored.id, stored.applyAt ?? stored.expiresAt);
      this.appendTransitionAudit(stored, transition, transition.audit);
      return { ok: true, request: copyOf(stored), ...(serviceLocked ? { serviceLocked } : {}) };
    });
  }

  /**
   * As the transition script: a temporary request schedules its revert; an extension moves one
   * still due; an applied revert ends its grant's schedule.
   */
  private scheduleRevert(applied: ChangeRequest, now: number): void {
    if (applied.revertOf) {
      this.reverts.delete(applied.revertOf);
      this.reminders.delete(applied.revertOf);
    }
    if (!applied.temporary) return;
    const target = applied.extendOf ?? applied.id;
    const planned = target === applied.id ? undefined : this.reverts.get(target);
    if (target !== applied.id && planned === undefined) return;
    // An extension adds its duration to the revert as planned (or to now, if that time passed).
    const from = Math.max(now, planned ?? now);
    this.reverts.set(target, from + applied.temporary.durationMs);
    this.reminders.set(target, from + applied.temporary.remindAfterMs);
  }

  /** As the Redis store: each call continues where the last one stopped, wrapping to the front. */
  dueReverts(now: number, limit: number): Promise<string[]> {
    return answer(() => {
      const due = dueIds(this.reverts, now, Number.MAX_SAFE_INTEGER);
      if (this.dueRevertsFrom >= due.length) this.dueRevertsFrom = 0;
      const page = due.slice(this.dueRevertsFrom, this.dueRevertsFrom + limit);
      const front =
        page.length < limit && this.dueRevertsFrom > 0
          ? due.slice(0, Math.min(limit - page.length, this.dueRevertsFrom))
          : [];
      this.dueRevertsFrom = front.length > 0 ? front.length : page.length === limit ? this.dueRevertsFrom + limit : 0;
      return [...page, ...front];
    });
  }

  private dueRevertsFrom = 0;

  scheduledReverts(): Promise<ScheduledRevert[]> {
    return answer(() =>
      [...this.reverts]
        .map(([id, dueAt]): ScheduledRevert => {
          const note = this.retrying.get(id);
          return note?.retryAt === dueAt ? { id, dueAt, overdueSince: note.planned } : { id, dueAt };
        })
        .sort((a, b) => a.dueAt - b.dueAt || (a.id < b.id ? -1 : 1)),
    );
  }

  /** As the Redis store's reverts:retrying: good only while the revert's time is that retry. */
  private readonly retrying = new Map<string, { planned: number; retryAt: number }>();

  revertDueAt(id: string): Promise<number | undefined> {
    return answer(() => this.reverts.get(id));
  }

  forgetRevert(id: string): Promise<void> {
    return answer(() => {
      this.reverts.delete(id);
      this.reminders.delete(id);
      this.retrying.delete(id);
    });
  }

  dueScheduled(now: number, limit: number): Promise<string[]> {
    return answer(() => dueIds(this.scheduled, now, limit));
  }

  dueForNudges(now: number, limit: number): Promise<string[]> {
    return answer(() => dueIds(this.nudges, now, limit));
  }

  scheduleNudges(next: ReadonlyArray<{ id: string; at: number | undefined }>): Promise<void> {
    return answer(() => {
      for (const { id, at } of next) {
        if (at === undefined) this.nudges.delete(id);
        else this.nudges.set(id, at);
      }
    });
  }

  dueReminders(now: number, limit: number): Promise<string[]> {
    return answer(() => dueIds(this.reminders, now, limit));
  }

  claimReminder(id: string): Promise<boolean> {
    return answer(() => this.reminders.delete(id));
  }

  postponeRevert(id: string, dueAt: number, now: number): Promise<void> {
    return answer(() => {
      const due = this.reverts.get(id);
      if (due === undefined) return;
      const note = this.retrying.get(id);
      const retryAt = Math.ceil(dueAt);
      // Whole milliseconds, as the Redis store writes them.
      const planned = note?.retryAt === due ? note.planned : Math.floor(Math.min(due, now));
      this.retrying.set(id, { planned, retryAt });
      this.reverts.set(id, retryAt);
    });
  }

  releaseClaim(key: string): Promise<void> {
    return answer(() => {
      this.clicks.delete(key);
    });
  }

  private readonly homesOpened = new Map<string, number>();

  noteHomeOpened(userId: string, at: number): Promise<void> {
    return answer(() => {
      this.homesOpened.set(userId, at);
    });
  }

  homesOpenedSince(userIds: readonly string[], since: number): Promise<string[]> {
    return answer(() => userIds.filter((userId) => (this.homesOpened.get(userId) ?? -Infinity) >= since));
  }

  claimOnce(key: string, ttlMs: number): Promise<boolean> {
    return answer(() => {
      const until = this.clicks.get(key);
      if (until !== undefined && until > Date.now()) return false;
      this.clicks.set(key, Date.now() + ttlMs);
      return true;
    });
  }

  addApproval(id: string, step: ApprovalStep): Promise<ApprovalResult> {
    return answer(() => {
      const stored = this.live(id);
      if (!stored) return { ok: false, reason: 'missing' };
      const { approval } = step;
      const about = {
        changeId: stored.id,
        channelId: stored.channelId,
        serviceId: stored.plan.serviceId,
        serviceName: stored.plan.serviceName,
        summary: step.audit.summary,
        ...(stored.organization ? { organization: stored.organization } : {}),
      };
      if (stored.status === 'pending' && approval.at >= stored.expiresAt) {
        stored.status = 'expired';
        this.appendAudit({
          ...about,
          at: approval.at,
          action: 'expired',
          actorId: approval.userId,
          message: EXPIRED_BEFORE_DECISION,
        });
        return { ok: false, reason: 'expired', request: copyOf(stored) };
      }
      if (stored.status !== 'pending') return { ok: false, reason: 'conflict', request: copyOf(stored) };
      const approvals = stored.approvals ?? [];
      if (approvals.some((a) => a.userId === approval.userId))
        return { ok: false, reason: 'already-approved', request: copyOf(stored) };
      const needed = neededApprovals(stored);
      const tally = approvalTally(needed, approvals);
      if (!approval.counts.some((index) => (tally[index] ?? Infinity) < (needed[index] ?? 0)))
        return { ok: false, reason: 'not-needed', request: copyOf(stored) };

      stored.approvals = [...approvals, copyOf(approval)];
      const after = approvalTally(needed, stored.approvals);
      const complete = needed.every((count, index) => (after[index] ?? 0) >= count);
      let serviceLocked = false;
      if (complete) {
        stored.status = step.schedule ? 'scheduled' : 'applying';
        stored.decidedBy = approval.userId;
        stored.decidedAt = approval.at;
        if (step.schedule) {
          this.scheduled.set(stored.id, step.schedule.at);
          // A request deferred to its window's opening at approval gets its time only now.
          stored.applyAt = step.schedule.at;
        } else if (step.claim) serviceLocked = this.grantLease(stored, step.claim);
      }
      const message = [step.audit.message, complete ? step.completesMessage : undefined].filter(Boolean).join(' ');
      const fence = this.fences.get(stored.id);
      this.appendAudit({
        ...about,
        at: approval.at,
        action: 'approved',
        actorId: approval.userId,
        ...(message ? { message } : {}),
        ...(fence === undefined ? {} : { fence }),
      });
      return { ok: true, request: copyOf(stored), complete, ...(serviceLocked ? { serviceLocked } : {}) };
    });
  }

  renewLease(token: LeaseToken, ttlMs: number): Promise<boolean> {
    return answer(() => {
      const stored = this.heldBy(token, Date.now());
      if (!stored?.lease) return false;
      stored.lease.until = Date.now() + ttlMs;
      const lock = this.serviceLocks.get(token.serviceId);
      if (lock && lock.holder === lockValue(token) && !stored.lease.sending) lock.until = Date.now() + ttlMs;
      return true;
    });
  }

  lockService(token: LeaseToken, ttlMs: number): Promise<ServiceLockAttempt> {
    return answer(() => {
      const now = Date.now();
      if (!this.heldBy(token, now)) return 'lost';
      const lock = this.serviceLocks.get(token.serviceId);
      if (lock && lock.until > now) return lock.holder === lockValue(token) ? 'acquired' : 'busy';
      this.serviceLocks.set(token.serviceId, { holder: lockValue(token), until: now + ttlMs });
      return 'acquired';
    });
  }

  confirmSending(token: LeaseToken, minRemainingMs: number): Promise<boolean> {
    return answer(() => {
      const now = Date.now();
      const stored = this.heldBy(token, now + minRemainingMs);
      const lock = this.serviceLocks.get(token.serviceId);
      if (!stored?.lease || !lock || lock.until <= now || lock.holder !== lockValue(token)) return false;
      stored.lease.sending = true;
      stored.lease.sentAt = now;
      lock.until = now + SENT_LOCK_MS;
      return true;
    });
  }

  recordConfirmed(token: LeaseToken, confirmed: readonly OperationResult[]): Promise<boolean> {
    return answer(() => {
      const stored = this.heldBy(token, Date.now());
      if (!stored) return false;
      stored.confirmed = structuredClone([...confirmed]);
      return true;
    });
  }

  takeOver(request: Pick<ChangeRequest, 'id' | 'plan'>, owner: string, ttlMs: number) {
    return answer(() => {
      const stored = this.live(request.id);
      const now = Date.now();
      if (!stored || stored.status !== 'applying') return undefined;
      if (stored.lease ? stored.lease.until > now : (stored.decidedAt ?? 0) + LEASELESS_TAKEOVER_AFTER_MS > now)
        return undefined;
      const oldFence = stored.lease?.fence ?? this.fences.get(request.id) ?? 0;
      const fence = oldFence + 1;
      const { sending = false, sentAt } = stored.lease ?? {};
      stored.lease = {
        owner,
        fence,
        until: now + ttlMs,
        sending,
        ...(sentAt === undefined ? {} : { sentAt }),
        takenAt: now,
      };
      this.fences.set(request.id, fence);
      // The settler inherits the lock its predecessor held, rather than waiting behind itself.
      const lock = this.serviceLocks.get(stored.plan.serviceId);
      if (lock?.holder === `${stored.id}:${oldFence}`) lock.holder = `${stored.id}:${fence}`;
      return {
        request: copyOf(stored),
        token: { requestId: stored.id, serviceId: stored.plan.serviceId, owner, fence },
      };
    });
  }

  /** The request if `token` holds its lease and the lease lasts beyond `atLeastUntil`. */
  private heldBy(token: LeaseToken, atLeastUntil: number): ChangeRequest | undefined {
    const stored = this.live(token.requestId);
    const lease = stored?.status === 'applying' ? stored.lease : undefined;
    if (!lease || lease.owner !== token.owner || lease.fence !== token.fence || lease.until <= atLeastUntil)
      return undefined;
    return stored;
  }

  private releaseLease(stored: ChangeRequest, serviceId: string | undefined): void {
    const lock = serviceId === undefined ? undefined : this.serviceLocks.get(serviceId);
    if (serviceId !== undefined && stored.lease && lock?.holder === `${stored.id}:${stored.lease.fence}`)
      this.serviceLocks.delete(serviceId);
    delete stored.lease;
  }

  listPending(channelId: string, now: number): Promise<ChangeRequest[]> {
    return answer(() =>
      this.liveRequests()
        .filter(
          (r) =>
            (r.channelId === channelId || approvalChannelOf(r) === channelId) &&
            (r.status === 'pending' || r.status === 'scheduled') &&
            r.expiresAt > now,
        )
        .sort(byCreation)
        .map(copyOf),
    );
  }

  listOpen(now: number, limit: number): Promise<ChangeRequest[]> {
    return answer(() =>
      this.liveRequests()
        .filter((r) => r.status === 'pending' && r.expiresAt > now)
        .sort(byCreation)
        .slice(0, limit)
        .map(copyOf),
    );
  }

  listOverdue(now: number, limit: number): Promise<string[]> {
    return answer(() =>
      this.liveRequests()
        .filter((r) => r.status === 'pending' && r.expiresAt <= now)
        .slice(0, limit)
        .map((r) => r.id),
    );
  }

  countPending(now: number): Promise<number> {
    return answer(() => this.liveRequests().filter((r) => r.status === 'pending' && r.expiresAt > now).length);
  }

  listApplying(): Promise<ChangeRequest[]> {
    return answer(() =>
      this.liveRequests()
        .filter((r) => r.status === 'applying')
        .sort(byCreation)
        .map(copyOf),
    );
  }

  /** As the Redis store: a channel's entries all count; the whole trail is scanned AUDIT_SCAN_MAX deep. */
  readAudit(query: AuditQuery): Promise<AuditEntry[]> {
    return answer(() => {
      this.forgetOldAudit();
      const found: AuditEntry[] = [];
      const oldestScanned = query.channelId === undefined ? Math.max(0, this.audit.length - AUDIT_SCAN_MAX) : 0;
      for (let i = this.audit.length - 1; i >= oldestScanned && found.length < query.limit; i--) {
        const entry = this.audit[i]?.entry;
        if (!entry || (query.serviceId !== undefined && entry.serviceId !== query.serviceId)) continue;
        if (query.channelId === undefined || entry.channelId === query.channelId) found.push(copyOf(entry));
      }
      return found;
    });
  }

  readApplied(window: { from: number; to: number }): Promise<AuditEntry[]> {
    return answer(() => {
      this.forgetOldAudit();
      return this.audit
        .filter(({ entry }) => entry.action === 'applied' && entry.at >= window.from && entry.at <= window.to)
        .map(({ entry }) => copyOf(entry));
    });
  }

  auditBeginsAt(): Promise<number | undefined> {
    return answer(() => {
      this.forgetOldAudit();
      return this.audit[0]?.entry.at;
    });
  }

  auditOutbox(): AuditOutbox {
    return this.outbox;
  }

  /** Entries the audit trail holds; for operators and tests. */
  auditSize(): Promise<number> {
    return answer(() => {
      this.forgetOldAudit();
      return this.audit.length;
    });
  }

  private forgetOldAudit(): void {
    const cutoff = Date.now() - this.auditRetentionMs;
    const old = this.audit.findIndex(({ writtenAt }) => writtenAt >= cutoff);
    this.audit.splice(0, old === -1 ? this.audit.length : old);
  }

  ping(): Promise<boolean> {
    return answer(() => true);
  }

  async close(): Promise<void> {}

  /** The stored request unless its retention has passed (then it is dropped, as Redis would). */
  private live(id: string): ChangeRequest | undefined {
    const stored = this.requests.get(id);
    if (stored && this.isRetired(stored)) {
      this.requests.delete(id);
      return undefined;
    }
    return stored;
  }

  private liveRequests(): ChangeRequest[] {
    this.forgetRetired();
    return [...this.requests.values()];
  }

  private forgetRetired(): void {
    for (const [id, request] of this.requests) {
      if (!this.isRetired(request)) continue;
      this.requests.delete(id);
      this.fences.delete(id);
    }
  }

  private isRetired(request: ChangeRequest): boolean {
    // As the transition script: the record a scheduled revert needs lives as long as the revert.
    if (this.reverts.has(request.id)) return false;
    return retentionDeadline(request, this.retentionSeconds) <= Date.now();
  }

  /** The claimant owns the request from now on: fence + 1, a fresh lease, nothing sent yet. */
  /** As the scripts' grant_lease: the lease, and the service's lock when it is free (true then). */
  private grantLease(stored: ChangeRequest, claim: { owner: string; ttlMs: number }): boolean {
    const now = Date.now();
    stored.lease = {
      owner: claim.owner,
      fence: (stored.lease?.fence ?? this.fences.get(stored.id) ?? 0) + 1,
      until: now + claim.ttlMs,
      sending: false,
    };
    this.fences.set(stored.id, stored.lease.fence);
    const serviceId = stored.plan.serviceId;
    const lock = this.serviceLocks.get(serviceId);
    if (lock && lock.until > now) return false;
    this.serviceLocks.set(serviceId, { holder: `${stored.id}:${stored.lease.fence}`, until: now + claim.ttlMs });
    return true;
  }

  private appendTransitionAudit(
    request: ChangeRequest,
    transition: Transition,
    details: Pick<NewAuditEntry, 'action'> & Partial<Pick<NewAuditEntry, 'summary' | 'apiRequestId' | 'message'>>,
  ): void {
    this.appendAudit({
      at: transition.now,
      action: details.action,
      changeId: request.id,
      actorId: transition.actorId,
      channelId: request.channelId,
      serviceId: request.plan.serviceId,
      serviceName: request.plan.serviceName,
      summary: details.summary ?? transition.audit.summary,
      apiRequestId: details.apiRequestId,
      message: details.message,
      // An applied entry carries the exact PATCH body, for drift attribution.
      ...(details.action === 'applied' ? { update: request.plan.update } : {}),
      ...(this.fences.has(request.id) ? { fence: this.fences.get(request.id) } : {}),
      ...(request.organization ? { organization: request.organization } : {}),
    });
  }

  private appendAudit(entry: NewAuditEntry): void {
    this.outbox.append(auditFields(entry));
    this.auditSequence += 1;
    this.audit.push({
      entry: withoutEmptyOptionals({ ...copyOf(entry), id: String(this.auditSequence) }),
      writtenAt: Date.now(),
    });
    this.forgetOldAudit();
    if (this.audit.length > MEMORY_AUDIT_MAX_ENTRIES)
      this.audit.splice(0, this.audit.length - MEMORY_AUDIT_MAX_ENTRIES);
  }
}

const lockValue = (token: LeaseToken) => `${token.requestId}:${token.fence}`;

/** Ids scored at or before `now`, soonest first (ZRANGEBYSCORE -inf now LIMIT 0 limit). */
function dueIds(scores: Map<string, number>, now: number, limit: number): string[] {
  return [...scores]
    .filter(([, at]) => at <= now)
    .sort(([a, x], [b, y]) => x - y || (a < b ? -1 : 1))
    .slice(0, limit)
    .map(([id]) => id);
}
