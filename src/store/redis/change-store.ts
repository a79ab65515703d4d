/**
 * ChangeStore over Redis (standalone, Sentinel or Cluster), for running more than one replica.
 * Every change of state is one Lua script (scripts.ts names them, lua/ holds them), so two approvers on two replicas can
 * never both win a transition. Key layout: keys.ts; field layout: codec.ts.
 */
import { approvalChannelOf } from '../../core/policy/progress.js';
import type { AuditEntry } from '../../core/change/audit.js';
import type { ChangeRequest, OperationResult } from '../../core/change/types.js';
import type {
  ApprovalResult,
  ApprovalStep,
  AuditQuery,
  ChangeStore,
  LeaseToken,
  ScheduledRevert,
  ServiceLockAttempt,
  Transition,
  TransitionResult,
} from '../../ports/change-store.js';
import type { AuditOutbox } from '../../ports/audit-export.js';
import type { PostedMessage } from '../../ports/messenger.js';
import { RedisAuditOutbox } from './audit-outbox.js';
import {
  AUDIT_SCAN_MAX,
  DEFAULT_AUDIT_RETENTION_DAYS,
  DEFAULT_RETENTION_SECONDS,
  EXPIRED_BEFORE_DECISION,
  LEASELESS_TAKEOVER_AFTER_MS,
  SENT_LOCK_MS,
  assertCreatable,
  byCreation,
  duplicateRequestError,
  requestedAuditEntry,
  retentionDeadline,
  copiesFrom,
  MAX_COPIES,
} from '../rules.js';
import {
  auditFromStreamEntry,
  auditToStreamArgs,
  hashFromFlatReply,
  requestFromHash,
  requestToHashArgs,
  StoredDataError,
} from './codec.js';
import { closeQuietly, connectRedis, type RedisConnection } from './connection.js';
import { reportUnavailableAsStoreErrors } from './errors.js';
import { changeKeys, type ChangeKeys } from './keys.js';
import { StreamExpiry } from './stream-expiry.js';
import type { CommandOf } from './lua-script.js';
import {
  ADD_APPROVAL,
  CONFIRM_SENDING,
  CREATE_CHANGE,
  DROP_STALE_RETRY_NOTES,
  LOCK_SERVICE,
  POSTPONE_REVERT,
  RECORD_CONFIRMED,
  RENEW_LEASE,
  SET_MESSAGE_TS,
  SET_POSTED,
  TAKE_OVER,
  TRANSITION_CHANGE,
} from './scripts.js';

export interface RedisChangeStoreOptions {
  /** Prepended to every key (default "chbot:"); must not contain braces. Tests use a random one. */
  keyPrefix?: string;
  /** Finished requests stay readable this long after expiresAt (default 7 days). */
  retentionSeconds?: number;
  /** Audit entries are kept this many days (AUDIT_RETENTION_DAYS, default 400). */
  auditRetentionDays?: number;
  /**
   * Receives the connection's error events when the store opened the connection from a URL.
   * Without it ioredis prints them to the console itself.
   */
  onConnectionError?: (error: Error) => void;
}

/** ping() answers false after this long rather than waiting for a reconnect. */
const PING_TIMEOUT_MS = 2_000;
/** Applied entries read at most per summary, and how far their server times may run behind `at`. */
const APPLIED_READ_MAX = 10_000;
/** Main-stream entries looked through at most for them. */
const APPLIED_SCAN_MAX = 100_000;
const APPLIED_CLOCK_SLACK_MS = 60_000;
/** Entries fetched per XREVRANGE when filtering by service. */
const AUDIT_PAGE_SIZE = 500;
/** Requests whose channel and service one process keeps in mind (a few hundred bytes each). */
const PLACES_REMEMBERED = 2_000;

export class RedisChangeStore implements ChangeStore {
  private readonly redis: RedisConnection;
  /**
   * Only a connection the store opened (from a URL) is closed by close(); an instance passed in
   * belongs to the caller, who may share it and closes it when it sees fit.
   */
  private readonly ownsConnection: boolean;
  private readonly keys: ChangeKeys;
  private readonly retentionSeconds: number;
  private readonly auditRetentionMs: number;
  private readonly createScript: CommandOf<typeof CREATE_CHANGE>;
  private readonly setPostedScript: CommandOf<typeof SET_POSTED>;
  private readonly transitionScript: CommandOf<typeof TRANSITION_CHANGE>;
  private readonly setMessageTsScript: CommandOf<typeof SET_MESSAGE_TS>;
  private readonly addApprovalScript: CommandOf<typeof ADD_APPROVAL>;
  private readonly renewLeaseScript: CommandOf<typeof RENEW_LEASE>;
  private readonly lockServiceScript: CommandOf<typeof LOCK_SERVICE>;
  private readonly confirmSendingScript: CommandOf<typeof CONFIRM_SENDING>;
  private readonly recordConfirmedScript: CommandOf<typeof RECORD_CONFIRMED>;
  private readonly takeOverScript: CommandOf<typeof TAKE_OVER>;
  private readonly postponeRevertScript: CommandOf<typeof POSTPONE_REVERT>;
  private readonly dropStaleRetryNotesScript: CommandOf<typeof DROP_STALE_RETRY_NOTES>;
  private outbox: AuditOutbox | undefined;
  /** When this process last renewed each audit stream's expiry. */
  private readonly streamExpiry: StreamExpiry;

  constructor(connection: RedisConnection | string, options: RedisChangeStoreOptions = {}) {
    this.keys = changeKeys(options.keyPrefix);
    this.retentionSeconds = options.retentionSeconds ?? DEFAULT_RETENTION_SECONDS;
    this.auditRetentionMs = (options.auditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS) * 86_400_000;
    this.streamExpiry = new StreamExpiry(this.auditRetentionMs);
    this.ownsConnection = typeof connection === 'string';
    this.redis = typeof connection === 'string' ? connectRedis(connection) : connection;
    const { onConnectionError } = options;
    if (this.ownsConnection && onConnectionError) this.redis.on('error', (error: Error) => onConnectionError(error));
    this.createScript = CREATE_CHANGE.on(this.redis);
    this.transitionScript = TRANSITION_CHANGE.on(this.redis);
    this.setMessageTsScript = SET_MESSAGE_TS.on(this.redis);
    this.setPostedScript = SET_POSTED.on(this.redis);
    this.addApprovalScript = ADD_APPROVAL.on(this.redis);
    this.renewLeaseScript = RENEW_LEASE.on(this.redis);
    this.lockServiceScript = LOCK_SERVICE.on(this.redis);
    this.confirmSendingScript = CONFIRM_SENDING.on(this.redis);
    this.takeOverScript = TAKE_OVER.on(this.redis);
    this.recordConfirmedScript = RECORD_CONFIRMED.on(this.redis);
    this.postponeRevertScript = POSTPONE_REVERT.on(this.redis);
    this.dropStaleRetryNotesScript = DROP_STALE_RETRY_NOTES.on(this.redis);
    // biome-ignore lint/correctness/noConstructorReturn: every method's Redis failures become the store's own
    return reportUnavailableAsStoreErrors(this);
  }

  async create(request: ChangeRequest): Promise<void> {
    if (!(await this.createIfAbsent(request))) throw duplicateRequestError(request.id);
  }

  async createIfAbsent(request: ChangeRequest): Promise<boolean> {
    assertCreatable(request);
    const wallNow = Date.now();
    const deadline = retentionDeadline(request, this.retentionSeconds);
    const hashArgs = requestToHashArgs(request);
    const place = this.placeKeysOf(request.channelId, request.plan.serviceId);
    const renew = this.streamExpiry.due([this.keys.audit, place.serviceAudit]);
    const created = await this.createScript({
      keys: {
        request: this.keys.request(request.id),
        pending: this.keys.pending(request.channelId),
        audit: this.keys.audit,
        open: this.keys.open,
        serviceAudit: place.serviceAudit,
        services: place.services,
      },
      args: {
        id: request.id,
        expiresAt: request.expiresAt,
        retentionDeadline: deadline,
        retentionMs: deadline - wallNow,
        pruneBefore: wallNow - this.retentionSeconds * 1000,
        auditMinid: wallNow - this.auditRetentionMs,
        streamTtlMs: this.streamExpiry.ttlMs,
        renew: renew.flags,
        hashCount: hashArgs.length,
        serviceId: request.plan.serviceId,
        fields: [...hashArgs, ...auditToStreamArgs(requestedAuditEntry(request))],
      },
    });
    if (created === 1) {
      this.streamExpiry.renewed(renew);
      this.remembered(request);
    }
    const decidedIn = approvalChannelOf(request);
    if (created === 1 && decidedIn) await this.listInChannel(decidedIn, request, deadline - wallNow);
    return created === 1;
  }

  /**
   * `pending` in the approval channel lists the requests decided there too. Only an index (listing
   * reads each request's status), so it is written after the request, not in the same script.
   */
  private async listInChannel(channelId: string, request: ChangeRequest, ttlMs: number): Promise<void> {
    if (ttlMs <= 0) return;
    const index = this.keys.pending(channelId);
    await this.redis.zadd(index, request.expiresAt, request.id);
    if ((await this.redis.pttl(index)) < ttlMs) await this.redis.pexpire(index, ttlMs);
  }

  async get(id: string): Promise<ChangeRequest | undefined> {
    return this.remembered(requestFromHash(await this.redis.hgetall(this.keys.request(id))));
  }

  /**
   * Channel and service of requests this process has read or created lately. Both are fixed when
   * the request is created, so a transition that follows a read (a click reads the request first)
   * needs no round trip to name its audit streams. Bounded: the oldest are forgotten first.
   */
  private readonly placeOf = new Map<string, { channelId: string; serviceId: string }>();

  private remembered<T extends Pick<ChangeRequest, 'id' | 'channelId' | 'plan'> | undefined>(request: T): T {
    if (!request) return request;
    this.placeOf.delete(request.id);
    this.placeOf.set(request.id, { channelId: request.channelId, serviceId: request.plan.serviceId });
    if (this.placeOf.size > PLACES_REMEMBERED) this.placeOf.delete(this.placeOf.keys().next().value ?? '');
    return request;
  }

  async setMessageTs(id: string, messageTs: string, approvalTs?: string): Promise<void> {
    await this.setPostedScript({
      keys: { request: this.keys.request(id), nudges: this.keys.nudges },
      args: { id, messageTs, approvalTs: approvalTs ?? '' },
    });
  }

  async recordCopy(request: Pick<ChangeRequest, 'id' | 'expiresAt'>, copy: PostedMessage): Promise<void> {
    const key = this.keys.copies(request.id);
    await this.redis
      .multi()
      .rpush(key, JSON.stringify(copy))
      .ltrim(key, -MAX_COPIES, -1)
      .pexpireat(key, retentionDeadline(request, this.retentionSeconds))
      .exec();
  }

  async copiesOf(id: string): Promise<PostedMessage[]> {
    return copiesFrom(await this.redis.lrange(this.keys.copies(id), 0, -1));
  }

  async setReminderTs(id: string, reminderTs: string): Promise<void> {
    await this.setMessageTsScript({
      keys: { request: this.keys.request(id) },
      args: { ts: reminderTs, field: 'reminderTs' },
    });
  }

  async transition(id: string, transition: Transition): Promise<TransitionResult> {
    const { audit } = transition;
    const place = await this.placeKeys(id);
    const renew = this.streamExpiry.due([this.keys.audit, place.serviceAudit]);
    const { claim, holder } = transition;
    const reply = await this.transitionScript({
      keys: {
        request: this.keys.request(id),
        applying: this.keys.applying,
        audit: this.keys.audit,
        serviceLock: place.serviceLock,
        open: this.keys.open,
        serviceAudit: place.serviceAudit,
        reverts: this.keys.reverts,
        reminders: this.keys.reminders,
        scheduled: this.keys.scheduled,
        services: place.services,
      },
      args: {
        id,
        now: transition.now,
        to: transition.to,
        actor: transition.actorId,
        outcome: transition.outcome ? JSON.stringify(transition.outcome) : '',
        auditMinid: Date.now() - this.auditRetentionMs,
        action: audit.action,
        summary: audit.summary,
        apiRequestId: audit.apiRequestId ?? '',
        message: audit.message ?? '',
        expiryMessage: EXPIRED_BEFORE_DECISION,
        claimOwner: claim?.owner ?? '',
        // Whole ms: the claim also sets the service lock's PX, which refuses a fraction (16.1 s).
        claimTtl: claim ? Math.ceil(claim.ttlMs) : 0,
        holderOwner: holder?.owner ?? '',
        holderFence: holder?.fence ?? '',
        auditRetentionMs: this.auditRetentionMs,
        streamTtlMs: this.streamExpiry.ttlMs,
        renew: renew.flags,
        fromStatuses: transition.from,
      },
    });
    if (wroteAudit(reply)) this.streamExpiry.renewed(renew);
    return transitionResultFromReply(reply);
  }

  async addApproval(id: string, step: ApprovalStep): Promise<ApprovalResult> {
    const { approval } = step;
    const place = await this.placeKeys(id);
    const renew = this.streamExpiry.due([this.keys.audit, place.serviceAudit]);
    const reply = await this.addApprovalScript({
      keys: {
        request: this.keys.request(id),
        applying: this.keys.applying,
        audit: this.keys.audit,
        open: this.keys.open,
        serviceAudit: place.serviceAudit,
        scheduled: this.keys.scheduled,
        serviceLock: place.serviceLock,
        services: place.services,
      },
      args: {
        id,
        now: approval.at,
        user: approval.userId,
        counts: approval.counts.join(','),
        auditMinid: Date.now() - this.auditRetentionMs,
        summary: step.audit.summary,
        message: step.audit.message ?? '',
        completesMessage: step.completesMessage ?? '',
        expiryMessage: EXPIRED_BEFORE_DECISION,
        claimOwner: step.claim?.owner ?? '',
        claimTtl: step.claim ? Math.ceil(step.claim.ttlMs) : 0,
        applyAt: step.schedule ? step.schedule.at : '',
        retentionMs: this.retentionSeconds * 1000,
        streamTtlMs: this.streamExpiry.ttlMs,
        renew: renew.flags,
      },
    });
    if (wroteAudit(reply)) this.streamExpiry.renewed(renew);
    return approvalResultFromReply(reply);
  }

  /**
   * The keys a script about this request names besides the shared ones: its audit index and its
   * service's lock. Channel and service never change, so reading them first cannot race; Redis
   * Cluster wants every key in KEYS up front.
   */
  private async placeKeys(id: string): Promise<PlaceKeys> {
    const place = this.placeOf.get(id);
    const [channelId, serviceId] = place
      ? [place.channelId, place.serviceId]
      : await this.redis.hmget(this.keys.request(id), 'channelId', 'serviceId');
    // Keys of the same slot that nothing uses when the request is gone.
    return this.placeKeysOf(channelId ?? '-', serviceId ?? '');
  }

  private placeKeysOf(channelId: string, serviceId: string): PlaceKeys {
    return {
      serviceAudit: this.keys.auditOfService(channelId, serviceId),
      services: this.keys.auditServicesOfChannel(channelId),
      serviceLock: this.keys.serviceLock(serviceId),
    };
  }

  async renewLease(token: LeaseToken, ttlMs: number): Promise<boolean> {
    const reply = await this.renewLeaseScript({
      keys: this.leaseKeys(token),
      args: { id: token.requestId, owner: token.owner, fence: token.fence, ttlMs: Math.ceil(ttlMs) },
    });
    return reply === 1;
  }

  async lockService(token: LeaseToken, ttlMs: number): Promise<ServiceLockAttempt> {
    const reply = await this.lockServiceScript({
      keys: this.leaseKeys(token),
      args: { id: token.requestId, owner: token.owner, fence: token.fence, ttlMs: Math.ceil(ttlMs) },
    });
    if (reply === 'acquired' || reply === 'busy' || reply === 'lost') return reply;
    throw new StoredDataError(`lock reply ${String(reply)}`);
  }

  async confirmSending(token: LeaseToken, minRemainingMs: number): Promise<boolean> {
    const reply = await this.confirmSendingScript({
      keys: this.leaseKeys(token),
      args: {
        id: token.requestId,
        owner: token.owner,
        fence: token.fence,
        minLeftMs: Math.ceil(minRemainingMs),
        sentLockMs: SENT_LOCK_MS,
      },
    });
    return reply === 1;
  }

  async recordConfirmed(token: LeaseToken, confirmed: readonly OperationResult[]): Promise<boolean> {
    const reply = await this.recordConfirmedScript({
      keys: { request: this.keys.request(token.requestId) },
      args: { owner: token.owner, fence: token.fence, confirmed: JSON.stringify(confirmed) },
    });
    return reply === 1;
  }

  async takeOver(request: Pick<ChangeRequest, 'id' | 'plan'>, owner: string, ttlMs: number) {
    const reply = await this.takeOverScript({
      keys: { request: this.keys.request(request.id), serviceLock: this.keys.serviceLock(request.plan.serviceId) },
      args: { owner, ttlMs: Math.ceil(ttlMs), legacyMs: LEASELESS_TAKEOVER_AFTER_MS, id: request.id },
    });
    if (reply === null) return undefined;
    const taken = requestFromHash(hashFromFlatReply(reply));
    if (!taken?.lease) throw new StoredDataError('takeover reply lacks the lease');
    return {
      request: taken,
      token: { requestId: taken.id, serviceId: taken.plan.serviceId, owner, fence: taken.lease.fence },
    };
  }

  private leaseKeys(token: LeaseToken): { request: string; serviceLock: string } {
    return { request: this.keys.request(token.requestId), serviceLock: this.keys.serviceLock(token.serviceId) };
  }

  async listPending(channelId: string, now: number): Promise<ChangeRequest[]> {
    const ids = await this.redis.zrangebyscore(this.keys.pending(channelId), `(${now}`, '+inf');
    const requests = await this.getMany(ids);
    return requests
      .filter((r) => (r.status === 'pending' || r.status === 'scheduled') && r.expiresAt > now)
      .sort(byCreation);
  }

  async listOpen(now: number, limit: number): Promise<ChangeRequest[]> {
    // Scored by expiry: the ones expiring first are the oldest (one lifetime for every request).
    const ids = await this.redis.zrangebyscore(this.keys.open, `(${now}`, '+inf', 'LIMIT', 0, limit);
    const requests = await this.getMany(ids);
    return requests.filter((r) => r.status === 'pending' && r.expiresAt > now).sort(byCreation);
  }

  async listOverdue(now: number, limit: number): Promise<string[]> {
    // The open set drops a request when it leaves pending: what is left below now is overdue.
    return this.redis.zrangebyscore(this.keys.open, '-inf', now, 'LIMIT', 0, limit);
  }

  async countPending(now: number): Promise<number> {
    return this.redis.zcount(this.keys.open, `(${now}`, '+inf');
  }

  async listApplying(): Promise<ChangeRequest[]> {
    const ids = await this.redis.smembers(this.keys.applying);
    const requests = await this.getMany(ids);
    await this.forgetVanished(ids, requests);
    // Transitions keep the set exact; the status check only guards against a stale read.
    return requests.filter((r) => r.status === 'applying').sort(byCreation);
  }

  async dueScheduled(now: number, limit: number): Promise<string[]> {
    const ids = await this.redis.zrangebyscore(this.keys.scheduled, '-inf', now, 'LIMIT', 0, limit);
    // A member whose record has gone (past its retention) can never be started: drop it.
    const requests = await this.getMany(ids);
    const live = new Set(requests.map((request) => request.id));
    const gone = ids.filter((id) => !live.has(id));
    if (gone.length > 0) await this.redis.zrem(this.keys.scheduled, ...gone);
    return ids.filter((id) => live.has(id));
  }

  /**
   * One page of the due reverts, each call continuing where the last one stopped and wrapping to
   * the front: reverts that fail on every tick stay due, and read from the front every time, 20 of
   * them would hide every other due revert for good.
   */
  async dueReverts(now: number, limit: number): Promise<string[]> {
    const page = (from: number, count: number) =>
      this.redis.zrangebyscore(this.keys.reverts, '-inf', now, 'LIMIT', from, count);
    const ids = await page(this.dueRevertsFrom, limit);
    return this.continueDue(ids, limit, (count) => page(0, count));
  }

  /** Where the next dueReverts page starts; per process, which is enough for fairness. */
  private dueRevertsFrom = 0;

  private async continueDue(
    ids: string[],
    limit: number,
    fromFront: (count: number) => Promise<string[]>,
  ): Promise<string[]> {
    if (ids.length === limit || this.dueRevertsFrom === 0) {
      this.dueRevertsFrom = ids.length === limit ? this.dueRevertsFrom + ids.length : 0;
      return ids;
    }
    // The end of the due list: wrap to its front for the rest of the page.
    const seen = new Set(ids);
    const front = (await fromFront(limit - ids.length)).filter((id) => !seen.has(id));
    this.dueRevertsFrom = front.length;
    return [...ids, ...front];
  }

  async scheduledReverts(): Promise<ScheduledRevert[]> {
    const [flat, retrying] = await Promise.all([
      this.redis.zrange(this.keys.reverts, 0, -1, 'WITHSCORES'),
      this.redis.hgetall(this.keys.revertsRetrying),
    ]);
    const scheduled: ScheduledRevert[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const id = flat[i] ?? '';
      const dueAt = Number(flat[i + 1]);
      const overdueSince = retryingSince(retrying[id], dueAt);
      scheduled.push({ id, dueAt, ...(overdueSince === undefined ? {} : { overdueSince }) });
    }
    // A retry note outlived by its revert (done, or scheduled anew by an extension) is dropped,
    // unless another replica made it good since it was read (a retry postponed meanwhile).
    const noted = new Set(scheduled.filter((r) => r.overdueSince !== undefined).map((r) => r.id));
    const stale = Object.keys(retrying).filter((id) => !noted.has(id));
    if (stale.length > 0)
      await this.dropStaleRetryNotesScript({
        keys: { reverts: this.keys.reverts, retrying: this.keys.revertsRetrying },
        args: { ids: stale },
      });
    return scheduled;
  }

  async revertDueAt(id: string): Promise<number | undefined> {
    const score = await this.redis.zscore(this.keys.reverts, id);
    return score === null ? undefined : Number(score);
  }

  async forgetRevert(id: string): Promise<void> {
    await this.redis
      .multi()
      .zrem(this.keys.reverts, id)
      .zrem(this.keys.reminders, id)
      .hdel(this.keys.revertsRetrying, id)
      .exec();
  }

  async dueForNudges(now: number, limit: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.nudges, '-inf', now, 'LIMIT', 0, limit);
  }

  async scheduleNudges(next: ReadonlyArray<{ id: string; at: number | undefined }>): Promise<void> {
    if (next.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const { id, at } of next) {
      if (at === undefined) pipeline.zrem(this.keys.nudges, id);
      else pipeline.zadd(this.keys.nudges, at, id);
    }
    for (const [error] of (await pipeline.exec()) ?? []) if (error) throw error;
  }

  async dueReminders(now: number, limit: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.reminders, '-inf', now, 'LIMIT', 0, limit);
  }

  async claimReminder(id: string): Promise<boolean> {
    return (await this.redis.zrem(this.keys.reminders, id)) === 1;
  }

  async postponeRevert(id: string, dueAt: number, now: number): Promise<void> {
    await this.postponeRevertScript({
      keys: { reverts: this.keys.reverts, retrying: this.keys.revertsRetrying },
      args: { id, retryAt: Math.ceil(dueAt), now: Math.floor(now) },
    });
  }

  async releaseClaim(key: string): Promise<void> {
    await this.redis.del(this.keys.click(key));
  }

  async noteHomeOpened(userId: string, at: number): Promise<void> {
    await this.redis.zadd(this.keys.homes, at, userId);
  }

  async homesOpenedSince(userIds: readonly string[], since: number): Promise<string[]> {
    if (userIds.length === 0) return [];
    const scores = await this.redis.zmscore(this.keys.homes, ...userIds);
    return userIds.filter((_, index) => Number(scores[index] ?? -Infinity) >= since);
  }

  async claimOnce(key: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.set(this.keys.click(key), '1', 'PX', Math.max(1, Math.round(ttlMs)), 'NX')) === 'OK';
  }

  async readAudit(query: AuditQuery): Promise<AuditEntry[]> {
    if (query.limit <= 0) return [];
    if (query.channelId === undefined) return this.newestOfService(this.keys.audit, query.limit, query.serviceId);
    const { channelId, limit } = query;
    const streams =
      query.serviceId === undefined
        ? [
            ...(await this.redis.smembers(this.keys.auditServicesOfChannel(channelId))).map((serviceId) =>
              this.keys.auditOfService(channelId, serviceId),
            ),
            // Entries written before the channel's services were its index, until that stream expires.
            this.keys.auditOfChannel(channelId),
          ]
        : [this.keys.auditOfService(channelId, query.serviceId)];
    return this.newestOfStreams(streams, limit);
  }

  /** The newest entries of these streams together, newest first (an entry in two of them once). */
  private async newestOfStreams(streams: string[], limit: number): Promise<AuditEntry[]> {
    const pipeline = this.redis.pipeline();
    for (const stream of streams) pipeline.xrevrange(stream, '+', this.auditFloor(), 'COUNT', limit);
    const byId = new Map<string, AuditEntry>();
    for (const [error, page] of (await pipeline.exec()) ?? []) {
      if (error) throw error;
      for (const [id, fields] of streamPage(page)) {
        const entry = byId.has(id) ? undefined : auditFromStreamEntry(id, fields);
        if (entry) byId.set(id, entry);
      }
    }
    return [...byId]
      .sort(([a], [b]) => compareStreamIds(b, a))
      .slice(0, limit)
      .map(([, entry]) => entry);
  }

  /**
   * The oldest stream id a reader may see: entries older than the retention are gone for readers
   * at once, whatever the approximate trimming (`MINID ~`, whole stream nodes) has left in Redis.
   */
  private auditFloor(): string {
    return String(Math.max(0, Date.now() - this.auditRetentionMs));
  }

  /** Entries the main audit stream holds (expired ones awaiting trimming included); for operators and tests. */
  async auditSize(): Promise<number> {
    return this.redis.xlen(this.keys.audit);
  }

  async readApplied(window: { from: number; to: number }): Promise<AuditEntry[]> {
    // Stream ids are the server's clock; the entries' own time decides (core/summary/drift.ts).
    // The applied entries are read from the main stream (no stream of their own: one fewer written
    // per approval), a page at a time, oldest first.
    const applied: AuditEntry[] = [];
    let start = String(Math.max(0, window.from - APPLIED_CLOCK_SLACK_MS, Date.now() - this.auditRetentionMs));
    const end = String(window.to + APPLIED_CLOCK_SLACK_MS);
    for (let scanned = 0; scanned < APPLIED_SCAN_MAX && applied.length < APPLIED_READ_MAX;) {
      const page = await this.redis.xrange(this.keys.audit, start, end, 'COUNT', AUDIT_PAGE_SIZE);
      for (const [id, fields] of page) {
        const entry = auditFromStreamEntry(id, fields);
        if (entry?.action === 'applied' && entry.at >= window.from && entry.at <= window.to) applied.push(entry);
      }
      const last = page.at(-1);
      if (!last || page.length < AUDIT_PAGE_SIZE) break;
      scanned += page.length;
      start = `(${last[0]}`;
    }
    return applied.slice(0, APPLIED_READ_MAX);
  }

  async auditBeginsAt(): Promise<number | undefined> {
    const [first] = await this.redis.xrange(this.keys.audit, this.auditFloor(), '+', 'COUNT', 1);
    return first ? (auditFromStreamEntry(first[0], first[1])?.at ?? Number(first[0].split('-')[0])) : undefined;
  }

  /** A stream's newest entries, optionally one service's, newest first: a bounded scan (AUDIT_SCAN_MAX entries). */
  private async newestOfService(stream: string, limit: number, serviceId: string | undefined): Promise<AuditEntry[]> {
    const found: AuditEntry[] = [];
    let scanned = 0;
    let end = '+';
    while (found.length < limit && scanned < AUDIT_SCAN_MAX) {
      const wanted = serviceId === undefined ? limit - found.length : AUDIT_PAGE_SIZE;
      const count = Math.min(wanted, AUDIT_SCAN_MAX - scanned);
      const page = await this.redis.xrevrange(stream, end, this.auditFloor(), 'COUNT', count);
      for (const [id, fields] of page) {
        const entry = auditFromStreamEntry(id, fields);
        if (entry && (serviceId === undefined || entry.serviceId === serviceId)) found.push(entry);
        if (found.length === limit) break;
      }
      const last = page.at(-1);
      if (!last || page.length < count) break;
      scanned += page.length;
      end = `(${last[0]}`;
    }
    return found;
  }

  /** The audit stream read by each export sink through its own consumer group (audit-outbox.ts). */
  auditOutbox(): AuditOutbox {
    this.outbox ??= new RedisAuditOutbox(this.redis, this.keys, this.auditRetentionMs, this.streamExpiry.ttlMs);
    return this.outbox;
  }

  /** False, never an exception, when Redis cannot be reached within PING_TIMEOUT_MS. */
  async ping(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS);
    });
    try {
      const answered = this.redis.ping().then((reply) => reply === 'PONG');
      return await Promise.race([answered, timedOut]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    if (this.ownsConnection) await closeQuietly(this.redis);
  }

  /** HGETALL in one pipeline; ids whose hash is gone are left out. */
  private async getMany(ids: string[]): Promise<ChangeRequest[]> {
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.keys.request(id));
    const replies = (await pipeline.exec()) ?? [];
    const requests: ChangeRequest[] = [];
    for (const [error, hash] of replies) {
      if (error) throw error;
      const request = requestFromHash(asStringRecord(hash));
      if (request) requests.push(request);
    }
    return requests;
  }

  /**
   * Drops from the applying set the ids whose request hash has expired (stuck in applying for
   * longer than the retention). Ids never come back, so this cannot race with a transition.
   */
  private async forgetVanished(ids: string[], found: ChangeRequest[]): Promise<void> {
    const present = new Set(found.map((r) => r.id));
    const vanished = ids.filter((id) => !present.has(id));
    if (vanished.length > 0) await this.redis.srem(this.keys.applying, ...vanished);
  }
}

interface PlaceKeys {
  /** The audit stream of the request's service in its channel. */
  serviceAudit: string;
  /** The channel's set of services with such a stream. */
  services: string;
  serviceLock: string;
}

/** An XREVRANGE reply from a pipeline, as [id, fields] pairs. */
function streamPage(reply: unknown): Array<[string, string[]]> {
  if (!Array.isArray(reply)) throw new StoredDataError('XREVRANGE reply is not a list');
  return reply.map((item: unknown) => {
    if (!Array.isArray(item) || typeof item[0] !== 'string' || !Array.isArray(item[1]))
      throw new StoredDataError('stream entry');
    return [item[0], item[1].map(String)];
  });
}

/** Stream ids ("ms-seq") in order. */
function compareStreamIds(a: string, b: string): number {
  const [aMs = 0, aSeq = 0] = a.split('-').map(Number);
  const [bMs = 0, bSeq = 0] = b.split('-').map(Number);
  return aMs - bMs || aSeq - bSeq;
}

function asStringRecord(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null) throw new StoredDataError('HGETALL reply is not a map');
  const record: Record<string, string> = {};
  for (const [field, fieldValue] of Object.entries(value)) {
    if (typeof fieldValue !== 'string') throw new StoredDataError(`hash field ${field} is not a string`);
    record[field] = fieldValue;
  }
  return record;
}

/** Whether a transition or approval script wrote its audit entry: it does when it moved the request. */
function wroteAudit(reply: unknown): boolean {
  return Array.isArray(reply) && (reply[0] === 'ok' || reply[0] === 'expired');
}

function transitionResultFromReply(reply: unknown): TransitionResult {
  if (!Array.isArray(reply) || typeof reply[0] !== 'string') throw new StoredDataError('transition reply');
  const reason: string = reply[0];
  if (reason === 'missing') return { ok: false, reason };
  const request = requestFromHash(hashFromFlatReply(reply[1]));
  if (!request) throw new StoredDataError('transition reply lacks the request');
  if (reason === 'ok') return { ok: true, request, ...(reply[2] === 1 ? { serviceLocked: true } : {}) };
  if (reason === 'conflict' || reason === 'expired' || reason === 'lost') return { ok: false, reason, request };
  throw new StoredDataError(`transition reason ${reason}`);
}

function approvalResultFromReply(reply: unknown): ApprovalResult {
  if (!Array.isArray(reply) || typeof reply[0] !== 'string') throw new StoredDataError('approval reply');
  const reason: string = reply[0];
  if (reason === 'missing') return { ok: false, reason };
  const request = requestFromHash(hashFromFlatReply(reply[2]));
  if (!request) throw new StoredDataError('approval reply lacks the request');
  if (reason === 'ok')
    return { ok: true, request, complete: reply[1] === 1, ...(reply[3] === 1 ? { serviceLocked: true } : {}) };
  if (reason === 'conflict' || reason === 'expired' || reason === 'already-approved' || reason === 'not-needed')
    return { ok: false, reason, request };
  throw new StoredDataError(`approval reason ${reason}`);
}

/** When a revert was due as planned, if its retry note still matches its score. */
function retryingSince(note: string | undefined, dueAt: number): number | undefined {
  const match = note === undefined ? null : /^(\d+):(\d+)$/.exec(note);
  if (!match || Number(match[2]) !== dueAt) return undefined;
  return Number(match[1]);
}
