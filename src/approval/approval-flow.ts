/**
 * The life of a change request: planned and posted for approval, then approved (applied exactly
 * once), rejected, cancelled or expired.
 *
 * Exactly once, across replicas, pauses and crashes:
 * - The store's atomic pending -> applying transition has one winner, who gets a lease with a
 *   fencing token and renews it while it works (lease.ts).
 * - Read -> stale check -> update -> outcome runs for one request of a service at a time: the
 *   winner takes the service's lock (held with the lease) before its fresh read, so a second
 *   approval re-reads after the first finished and is refused as stale if a field it touches moved.
 * - Right before the update goes on the wire (after any throttle wait) the store confirms the
 *   lease and the lock are still held, in the same step that marks the request as sending. A
 *   replica that lost its lease sends nothing; only the lease's holder records the outcome.
 * - Any replica takes over a request whose lease expired and settles it: failed if its owner
 *   never got to send, otherwise applied or failed as the service, re-read, shows.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AuditAction } from '../core/change/audit.js';
import { planChange } from '../core/change/plan.js';
import { temporaryPlanProblem } from '../core/change/temporary.js';
import { staleFields } from '../core/change/state.js';
import {
  FINAL_STATUSES,
  type ChangeOutcome,
  type ChangePlan,
  type ChangeRequest,
  type ChangeStatus,
} from '../core/change/types.js';
import { planIsVisible } from '../core/change/verify.js';
import { changeSummary } from '../core/change/summary.js';
import { alreadyDecidedText, requestMessage } from '../core/render/change.js';
import { approvalNotCountedText, approvalRecordedText, countsForText, deniedText } from '../core/render/policy.js';
import { cloudErrorSentence, messageOf, UNEXPECTED_IN_BOT } from '../core/render/errors.js';
import { esc, section } from '../core/render/mrkdwn.js';
import { serviceBlocks } from '../core/render/service.js';
import { CloudApiError } from '../core/service/api-error.js';
import type { ServiceRecord } from '../core/service/schema.js';
import {
  MessengerError,
  type ApprovalPolicy,
  type ChangeRequestService,
  type ChangeStore,
  type ChangeEventOutcome,
  type ChangeObserver,
  type Decision,
  type DecisionReply,
  type LeaseToken,
  type Log,
  type Messenger,
  type NewChangeRequest,
  type RequestOutcome,
  SendWindowClosedError,
  type ServiceDirectory,
  type Transition,
} from '../ports/index.js';
import { LeaseLostError, newLeaseOwner, whileHoldingLease, type HeldLease } from './lease.js';

export interface ApprovalFlowOptions {
  cloud: ServiceDirectory;
  store: ChangeStore;
  messenger: Messenger;
  policy: ApprovalPolicy;
  ttlMs: number;
  logger: Pick<Log, 'info' | 'warn' | 'error'>;
  now?: () => number;
  /** Pauses between re-reads when an update's outcome is unknown. */
  recheckDelaysMs?: number[];
  /** How long a claimed request stays ours without renewal (renewed every quarter); default 20 s. */
  leaseMs?: number;
  /** This replica's name in leases; default host:pid:random. */
  owner?: string;
  /** How long an approval waits for another change to the same service to finish; default 2 min. */
  serviceLockWaitMs?: number;
  /** The Cloud client's timeout of one request (CLICKHOUSE_TIMEOUT_SECONDS); default 15 s. */
  updateTimeoutMs?: number;
  /** Told of every outcome (requested, applied, failed, stale, rejected, cancelled, expired). */
  observe?: ChangeObserver;
  /** Told of every request that reached applied or failed (temporary changes follow up on it). */
  afterSettled?: (request: ChangeRequest) => Promise<void>;
}

const DEFAULT_LEASE_MS = 20_000;
const DEFAULT_SERVICE_LOCK_WAIT_MS = 120_000;
const DEFAULT_UPDATE_TIMEOUT_MS = 15_000;
/** Polling for a busy service lock: quick enough to follow a finished change at once. */
const SERVICE_LOCK_POLL_MS = 100;
const OBSERVED: ReadonlySet<string> = new Set<ChangeEventOutcome>([
  'requested',
  'applied',
  'failed',
  'stale',
  'rejected',
  'cancelled',
  'expired',
]);

export class ApprovalFlow implements ChangeRequestService {
  private readonly now: () => number;
  /** Approvals running in this process; shutdown waits for them. */
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Ids of the requests this process is applying right now; never reconciled from here. */
  private readonly applyingHere = new Set<string>();
  private readonly owner: string;
  readonly leaseMs: number;
  /** The API timeout of one update: how long an update sent by a stopped replica may still land. */
  private readonly updateTimeoutMs: number;

  constructor(private readonly options: ApprovalFlowOptions) {
    this.now = options.now ?? Date.now;
    this.owner = options.owner ?? newLeaseOwner();
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.updateTimeoutMs = options.updateTimeoutMs ?? DEFAULT_UPDATE_TIMEOUT_MS;
  }

  /** Plans the change against the service, stores it and posts it in the channel for approval. */
  async request(input: NewChangeRequest): Promise<RequestOutcome> {
    const planned = planChange(input.service, input.intent);
    if (!planned.ok) return { ok: false, problems: planned.problems };
    const notTemporary = input.temporary && temporaryPlanProblem(input.intent, planned.plan);
    if (notTemporary) return { ok: false, problems: [{ field: 'request', message: notTemporary }] };
    return this.file({ plan: planned.plan, ...input });
  }

  /**
   * Stores a planned request under the rules in force for it and posts it for approval (in
   * `threadTs`'s thread when given); a request no rule asks approval for is applied at once.
   */
  async file(
    input: Omit<NewChangeRequest, 'intent'> & Pick<ChangeRequest, 'plan' | 'extendOf' | 'threadTs'>,
  ): Promise<RequestOutcome> {
    const ruling = this.options.policy.rulesFor(input.service, input.plan);
    if (ruling.decision.kind === 'deny') return { ok: false, text: deniedText(ruling.decision) };
    const createdAt = this.now();
    const request: ChangeRequest = {
      id: newRequestId(),
      channelId: input.channelId,
      requesterId: input.userId,
      plan: input.plan,
      createdAt,
      expiresAt: createdAt + this.options.ttlMs,
      status: 'pending',
      requirements: [...ruling.decision.requirements],
      ...(ruling.digest ? { policyDigest: ruling.digest } : {}),
      ...(input.temporary ? { temporary: input.temporary } : {}),
      ...(input.extendOf ? { extendOf: input.extendOf } : {}),
      ...(input.threadTs ? { threadTs: input.threadTs } : {}),
    };
    await this.options.store.create(request);
    this.notify('requested', request, input.userId);
    let ts: string;
    try {
      ts = await this.options.messenger.post(request.channelId, { ...requestMessage(request), ...inThread(request) });
    } catch (error) {
      await this.withdrawUnposted(request, error);
      return { ok: false, text: postFailureText(error) };
    }
    const posted = { ...request, messageTs: ts };
    try {
      await this.options.store.setMessageTs(request.id, ts);
    } catch (error) {
      // The request is posted and approvable; without its ts stored the bot could not update the
      // message later, so withdraw it openly rather than leave live buttons it cannot follow up.
      this.options.logger.error(
        `change ${request.id}: posted but its message could not be recorded: ${messageOf(error)}`,
      );
      const withdrawn = await this.transition(request, ['pending'], 'cancelled', request.requesterId, 'cancelled', {
        message: 'The bot could not record this request, so it was withdrawn. Ask again in a minute.',
      }).catch(() => undefined);
      if (withdrawn?.ok) await this.refreshMessage({ ...withdrawn.request, messageTs: ts });
      return {
        ok: false,
        text: ':x: The request was posted but the bot could not record it, so it was withdrawn. Try again in a minute.',
      };
    }
    if (ruling.decision.kind === 'auto') {
      const rules = (request.requirements ?? []).map((r) => r.rule).join(', ');
      await this.track(
        this.applyWithoutApproval(
          posted,
          request.requesterId,
          `No approval needed under the policy rule(s): ${rules}.`,
        ),
      );
    }
    return { ok: true, request: posted };
  }

  decide(decision: Decision, id: string, userId: string): Promise<DecisionReply> {
    return this.track(this.decideNow(decision, id, userId));
  }

  /**
   * Applies a pending request that needs no approval (a revert: it only takes access back) through
   * the same exactly-once path as an approval; `actorId` is recorded as its approver.
   */
  applyUnreviewed(request: ChangeRequest, actorId: string): Promise<DecisionReply> {
    return this.track(this.applyWithoutApproval(request, actorId));
  }

  /** Work that shutdown waits for. */
  private async track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    try {
      return await work;
    } finally {
      this.inFlight.delete(work);
    }
  }

  /**
   * Settles requests in "applying" whose owner stopped renewing its lease (SIGKILL, crash, a
   * frozen or cut-off process): takes each over with a new fencing token, so the old owner can no
   * longer send or record anything, then decides. A live owner's lease is never taken.
   */
  async reconcileAbandoned(): Promise<number> {
    let settled = 0;
    for (const request of await this.options.store.listApplying()) {
      if (this.applyingHere.has(request.id)) continue;
      const taken = await this.options.store.takeOver(request, this.owner, this.leaseMs);
      if (!taken) continue;
      this.applyingHere.add(request.id);
      try {
        const recorded = await this.holding(taken.token, (lease) => this.settleTaken(taken.request, lease));
        if (!recorded) continue;
        settled += 1;
        await this.announce(recorded.request, recorded.service);
      } finally {
        this.applyingHere.delete(request.id);
      }
    }
    if (settled > 0)
      this.options.logger.info(`settled ${settled} change request(s) whose replica stopped while applying them`);
    return settled;
  }

  private async settleTaken(request: ChangeRequest, lease: HeldLease): Promise<Recorded | undefined> {
    const outcome = await this.settleOutcome(request, lease);
    if (outcome === LOST) return undefined;
    const actor = request.decidedBy ?? request.requesterId;
    const settled = await this.transition(
      request,
      ['applying'],
      outcome.status,
      actor,
      outcome.audit,
      outcome.outcome,
      { holder: lease.token },
    );
    return settled.ok ? { request: settled.request, service: outcome.service } : undefined;
  }

  private async settleOutcome(request: ChangeRequest, lease: HeldLease): Promise<AppliedOutcome | typeof LOST> {
    // Fence 1 after a takeover: nobody ever held a lease on it (claimed by a replica older than
    // leases), so whether the update went out is unknown and only the service can tell.
    const previous = request.lease;
    if (previous?.sending === false && lease.token.fence > 1) {
      return refused(
        'The bot replica applying this change stopped (or lost its hold on it) before sending it to ClickHouse Cloud, so nothing was changed. Ask again if it is still needed.',
        'failed',
      );
    }
    // An update sent by the old owner may still be on its way: it left within a quarter lease of
    // being confirmed (or never), and its request times out after the API timeout.
    const lateBy = (previous?.sentAt ?? 0) + this.leaseMs / 4 + this.updateTimeoutMs + 1_000 - (previous?.takenAt ?? 0);
    if (previous?.sentAt !== undefined && lateBy > 0) await sleep(lateBy);
    // The service's lock passed to us with the takeover; 'busy' only if its day-long backstop ran out.
    if ((await this.options.store.lockService(lease.token, this.leaseMs)) === 'lost' || lease.lost) return LOST;
    const note =
      'The bot replica applying this change stopped after sending it to ClickHouse Cloud; it was checked against the service afterwards';
    try {
      const service = await this.lookForPlan(request.plan);
      if (service)
        return { status: 'applied', audit: 'applied', outcome: { message: `${note}, which shows it.` }, service };
      return refused(`${note}, which does not show it. Ask again if it is still needed.`, 'failed');
    } catch (error) {
      return failed(error, `${note}, but the service could not be read; look at it with the show command`);
    }
  }

  /** The service if it shows the plan within the re-check delays (an update may land late). */
  private async lookForPlan(plan: ChangePlan): Promise<ServiceRecord | undefined> {
    for (const delay of [0, ...(this.options.recheckDelaysMs ?? [2_000, 4_000])]) {
      if (delay > 0) await sleep(delay);
      const now = await this.freshService(plan.serviceId);
      if (now && planIsVisible(plan, now)) return now;
    }
    return undefined;
  }

  /** Resolves when every approval this process started has finished (for graceful shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  private async decideNow(decision: Decision, id: string, userId: string): Promise<DecisionReply> {
    const request = await this.options.store.get(id);
    if (!request)
      return {
        text: 'This change request no longer exists: it expired a long time ago. Ask again if it is still needed.',
      };
    if (request.status !== 'pending') return { text: alreadyDecidedText(request) };
    if (request.revertOf)
      return {
        text: 'This is a revert the bot applies by itself: it needs no decision, so your click changed nothing.',
      };
    const verdict = await this.options.policy.check(decision, userId, request);
    if (!verdict.allowed) return { text: `:no_entry_sign: ${verdict.reason} Nothing was changed.` };
    if (decision === 'approve') return this.approve(request, userId, verdict.counts);
    return this.close(request, decision === 'reject' ? 'rejected' : 'cancelled', userId);
  }

  private async close(request: ChangeRequest, to: 'rejected' | 'cancelled', userId: string): Promise<DecisionReply> {
    const result = await this.transition(request, ['pending'], to, userId, to);
    if (!result.ok) return this.lostRace(result);
    await this.refreshMessage(result.request);
    return undefined;
  }

  /**
   * Records the approval; the store decides in the same atomic step whether it was the last one
   * needed, and only the caller whose approval completed the request applies it.
   */
  private async approve(
    request: ChangeRequest,
    approverId: string,
    counts: readonly number[] | undefined,
  ): Promise<DecisionReply> {
    const requirements = request.requirements ?? [];
    const given = counts ?? requirements.map((_, index) => index);
    const recorded = await this.options.store.addApproval(request.id, {
      approval: { userId: approverId, at: this.now(), counts: [...(given.length > 0 ? given : [0])] },
      audit: { summary: changeSummary(request.plan.changes), message: countsForText(requirements, given) },
      completesMessage: 'The last approval needed: applying the change.',
      claim: { owner: this.owner, ttlMs: this.leaseMs },
    });
    if (!recorded.ok) {
      if (recorded.reason === 'already-approved' || recorded.reason === 'not-needed')
        return { text: approvalNotCountedText(recorded.request, recorded.reason) };
      if (recorded.reason === 'expired') this.notify('expired', request, approverId);
      return this.lostRace(recorded);
    }
    if (!recorded.complete) {
      await this.refreshMessage(recorded.request);
      return { text: approvalRecordedText(recorded.request) };
    }
    return this.applyAsClaimed(recorded.request, approverId);
  }

  /** A request that needs no approval (by the policy, or a revert): the same exactly-once path, `actorId` as approver. */
  private async applyWithoutApproval(
    request: ChangeRequest,
    actorId: string,
    auditMessage?: string,
  ): Promise<DecisionReply> {
    const claimed = await this.transition(request, ['pending'], 'applying', actorId, 'approved', undefined, {
      claim: { owner: this.owner, ttlMs: this.leaseMs },
      ...(auditMessage ? { auditMessage } : {}),
    });
    if (!claimed.ok) return this.lostRace(claimed);
    return this.applyAsClaimed(claimed.request, actorId);
  }

  private async applyAsClaimed(request: ChangeRequest, approverId: string): Promise<DecisionReply> {
    this.applyingHere.add(request.id);
    let result: Recorded | { reply: DecisionReply };
    try {
      result = await this.holding(leaseTokenOf(request), (lease) => this.applyClaimed(request, approverId, lease));
    } finally {
      this.applyingHere.delete(request.id);
    }
    if ('reply' in result) return result.reply;
    await this.announce(result.request, result.service);
    return undefined;
  }

  /** Shows a recorded outcome in the channel: the request's message, then the resulting service. */
  private async announce(request: ChangeRequest, service: ServiceRecord | undefined): Promise<void> {
    await this.refreshMessage(request);
    if (service) await this.postResult(request, service);
    await this.followUp(request);
  }

  private holding<T>(token: LeaseToken, work: (lease: HeldLease) => Promise<T>): Promise<T> {
    return whileHoldingLease(this.options.store, token, this.leaseMs, this.options.logger, work);
  }

  /** Applies a claimed request and records its outcome, all while holding its lease. */
  private async applyClaimed(
    request: ChangeRequest,
    approverId: string,
    lease: HeldLease,
  ): Promise<Recorded | { reply: DecisionReply }> {
    await this.refreshMessage(request);
    const outcome = await this.apply(request, lease);
    if (outcome === LOST) return { reply: { text: LOST_BEFORE_SENDING_TEXT } };
    const finished = await this.transition(
      request,
      ['applying'],
      outcome.status,
      approverId,
      outcome.audit,
      outcome.outcome,
      { holder: lease.token },
    );
    if (finished.ok) return { request: finished.request, service: outcome.service };
    if (finished.reason === 'lost' || finished.reason === 'conflict') {
      // Another replica took the request over and decides (or decided) from the service itself.
      this.options.logger.warn(
        `change ${request.id}: taken over by another replica before its outcome was recorded here (${outcome.status}${outcome.outcome.apiRequestId ? `, API request ${outcome.outcome.apiRequestId}` : ''})`,
      );
      if (outcome.status === 'applied' && finished.reason === 'conflict')
        await this.correctIfSettledOtherwise(request, outcome);
      return { reply: { text: LOST_AFTER_SENDING_TEXT } };
    }
    this.options.logger.error(`change ${request.id}: could not record outcome ${outcome.status}`);
    return {
      reply: {
        text: 'The bot could not record the outcome of this request. Look at the service with the show command before doing anything else.',
      },
    };
  }

  /**
   * ClickHouse Cloud confirmed an update after another replica had settled the request: if that
   * replica concluded otherwise, say so in the request's thread rather than leave a wrong record.
   */
  private async correctIfSettledOtherwise(request: ChangeRequest, outcome: AppliedOutcome): Promise<void> {
    const settled = await this.options.store.get(request.id);
    if (!settled || settled.status === 'applied' || !settled.messageTs) return;
    const text = `:warning: Correction for change ${request.id}: ClickHouse Cloud confirmed it was applied${outcome.outcome.apiRequestId ? ` (API request ${outcome.outcome.apiRequestId})` : ''}, after another bot replica had recorded it as not applied. Look at the service with the show command.`;
    try {
      await this.options.messenger.post(request.channelId, {
        text: esc(text),
        blocks: [section(esc(text))],
        threadTs: settled.messageTs,
      });
    } catch (error) {
      this.options.logger.warn(`change ${request.id}: could not post the correction: ${messageOf(error)}`);
    }
  }

  private async followUp(request: ChangeRequest): Promise<void> {
    await this.options
      .afterSettled?.(request)
      .catch((error: unknown) =>
        this.options.logger.warn(`change ${request.id}: follow-up failed: ${messageOf(error)}`),
      );
  }

  /**
   * Waits for the service's lock (another approval of the same service may be applying), then
   * re-reads the service, refuses a stale change, applies it once, and decides what happened.
   */
  private async apply(request: ChangeRequest, lease: HeldLease): Promise<AppliedOutcome | typeof LOST> {
    const { plan } = request;
    let current: ServiceRecord | undefined;
    try {
      const locked = await this.lockService(lease);
      if (locked) return locked;
      current = await this.freshService(plan.serviceId);
    } catch (error) {
      if (error instanceof LeaseLostError) return LOST;
      return failed(error, 'Could not re-read the service before applying, so nothing was changed');
    }
    if (!current) return refused('The service no longer exists, so nothing was changed.', 'failed');
    const stale = staleFields(plan.before, current);
    if (stale.length > 0) {
      const fields = plan.changes.filter((c) => stale.includes(c.field)).map((c) => c.label);
      return refused(
        `The service changed since this request was made (${[...new Set(fields)].join(', ')}), so it was not applied. Make a new request against the service as it is now.`,
        'stale',
      );
    }
    // An extension of a temporary change sends nothing: approving it moves the revert (in the store).
    if (Object.keys(plan.update).length === 0) return { status: 'applied', audit: 'applied', outcome: {} };
    try {
      const result = await this.options.cloud.updateService(plan.serviceId, plan.update, {
        beforeSend: () => this.confirmSending(lease),
      });
      return {
        status: 'applied',
        audit: 'applied',
        outcome: { apiRequestId: result.requestId },
        service: result.service,
      };
    } catch (error) {
      if (error instanceof LeaseLostError || error instanceof SendWindowClosedError) return LOST;
      if (error instanceof CloudApiError && !error.certainlyNotApplied) return this.reconcile(plan, error);
      return failed(error, 'ClickHouse Cloud did not apply the change');
    }
  }

  /**
   * Takes the service's lock for the lease's request, waiting while another request holds it.
   * Undefined once held; an outcome when waiting took too long. Throws LeaseLostError.
   */
  private async lockService(lease: HeldLease): Promise<AppliedOutcome | undefined> {
    const waitMs = this.options.serviceLockWaitMs ?? DEFAULT_SERVICE_LOCK_WAIT_MS;
    const deadline = Date.now() + waitMs;
    for (;;) {
      if (lease.lost) throw new LeaseLostError(lease.token.requestId);
      const attempt = await this.options.store.lockService(lease.token, this.leaseMs);
      if (attempt === 'acquired') return undefined;
      if (attempt === 'lost') throw new LeaseLostError(lease.token.requestId);
      if (Date.now() >= deadline) {
        return refused(
          `Another change to this service was still being applied after ${Math.round(waitMs / 1000)} s, so this one was not applied. Look at the service with the show command, then ask again.`,
          'failed',
        );
      }
      await sleep(SERVICE_LOCK_POLL_MS * (0.5 + Math.random()));
    }
  }

  /**
   * The fence check right before the update goes on the wire (see the header). Answers the time
   * by which the update must have left: a process frozen after the check for longer than a
   * quarter lease sends nothing when it wakes (the client checks the clock right before sending).
   */
  private async confirmSending(lease: HeldLease): Promise<number> {
    // Half a lease left at least: a lease renewed every quarter has three quarters after a renewal,
    // so less means the renewals stopped (a pause) and another replica may be about to take over.
    // One slow renewal is forgiven: renew once, then ask again.
    const confirm = () => this.options.store.confirmSending(lease.token, this.leaseMs / 2);
    if (lease.lost) throw new LeaseLostError(lease.token.requestId);
    if (
      !(await confirm()) &&
      !((await this.options.store.renewLease(lease.token, this.leaseMs)) && (await confirm()))
    ) {
      throw new LeaseLostError(lease.token.requestId);
    }
    return Date.now() + this.leaseMs / 4;
  }

  /** The update's outcome is unknown (timeout, 5xx, dropped connection): look, do not replay. */
  private async reconcile(plan: ChangePlan, error: CloudApiError): Promise<AppliedOutcome> {
    // The server may still be applying it: look a few times before concluding.
    for (const delay of [0, ...(this.options.recheckDelaysMs ?? [2_000, 4_000])]) {
      if (delay > 0) await sleep(delay);
      try {
        const now = await this.freshService(plan.serviceId);
        if (now && planIsVisible(plan, now)) {
          return {
            status: 'applied',
            audit: 'applied',
            outcome: {
              message: 'Confirmed by re-reading the service after the API call did not answer cleanly.',
              apiRequestId: error.requestId,
            },
            service: now,
          };
        }
      } catch {
        return failed(error, 'The outcome is unknown: look at the service with the show command before asking again');
      }
    }
    return failed(
      error,
      'The change was not applied: the service still does not show it a few seconds later. Look at it with the show command before asking again',
    );
  }

  private freshService(serviceId: string): Promise<ServiceRecord | undefined> {
    return this.options.cloud.getService(serviceId, { fresh: true });
  }

  private async transition(
    request: ChangeRequest,
    from: ChangeStatus[],
    to: ChangeStatus,
    actorId: string,
    action: AuditAction,
    outcome?: ChangeOutcome,
    extra: Pick<Transition, 'claim' | 'holder'> & { auditMessage?: string } = {},
  ) {
    const { auditMessage, ...lease } = extra;
    const message = auditMessage ?? outcome?.message;
    const result = await this.options.store.transition(request.id, {
      from,
      to,
      actorId,
      now: this.now(),
      ...lease,
      ...(outcome ? { outcome } : {}),
      audit: {
        action,
        ...(outcome?.apiRequestId ? { apiRequestId: outcome.apiRequestId } : {}),
        ...(message ? { message } : {}),
        summary: changeSummary(request.plan.changes),
      },
    });
    if (result.ok) this.notify(action, request, actorId, outcome?.apiRequestId);
    else if (result.reason === 'expired') this.notify('expired', request, actorId);
    return result;
  }

  private notify(outcome: string, request: ChangeRequest, userId: string, apiRequestId?: string): void {
    if (!OBSERVED.has(outcome)) return;
    const event = {
      outcome: outcome as ChangeEventOutcome,
      changeRequestId: request.id,
      serviceId: request.plan.serviceId,
      channelId: request.channelId,
      userId,
    };
    this.options.observe?.(apiRequestId ? { ...event, apiRequestId } : event);
  }

  private async lostRace(
    result: Exclude<Awaited<ReturnType<ChangeStore['transition']>>, { ok: true }>,
  ): Promise<DecisionReply> {
    if (result.reason === 'missing') return { text: 'This change request no longer exists.' };
    if (result.reason === 'lost') return { text: LOST_AFTER_SENDING_TEXT };
    if (result.reason === 'expired') {
      await this.refreshMessage(result.request);
      return {
        text: ':hourglass_flowing_sand: This change request has expired, so nothing was changed. Ask again if it is still needed.',
      };
    }
    return { text: alreadyDecidedText(result.request) };
  }

  /**
   * Shows the request in its message. A replica that was held up must never leave "applying"
   * over a newer outcome, so after showing a status that is not final it reads the request
   * again and shows the newer status if it moved meanwhile (final statuses never change).
   */
  private async refreshMessage(request: ChangeRequest): Promise<void> {
    try {
      let shown = request;
      for (let round = 0; round < 3; round++) {
        if (!shown.messageTs) return;
        await this.options.messenger.update(shown.channelId, shown.messageTs, requestMessage(shown));
        if (FINAL_STATUSES.includes(shown.status)) return;
        const latest = await this.options.store.get(request.id);
        if (!latest || latest.status === shown.status) return;
        shown = { ...latest, messageTs: latest.messageTs ?? shown.messageTs };
      }
    } catch (error) {
      this.options.logger.warn(`change ${request.id}: could not update its message: ${messageOf(error)}`);
    }
  }

  private async postResult(request: ChangeRequest, service: ServiceRecord): Promise<void> {
    try {
      await this.options.messenger.post(request.channelId, {
        text: esc(`Applied change ${request.id} to ${service.name}`),
        blocks: serviceBlocks(service, `${service.name || service.id}: after change ${request.id}`),
        ...inThread(request),
      });
    } catch (error) {
      this.options.logger.warn(`change ${request.id}: could not post the resulting service: ${messageOf(error)}`);
    }
  }

  /** A request nobody could see must not stay approvable. */
  private async withdrawUnposted(request: ChangeRequest, error: unknown): Promise<void> {
    this.options.logger.warn(`change ${request.id}: could not post it in ${request.channelId}: ${messageOf(error)}`);
    await this.transition(request, ['pending'], 'cancelled', request.requesterId, 'cancelled', {
      message: 'The request could not be posted in the channel.',
    }).catch(() => undefined);
  }
}

/** The lease was lost before anything was sent: this replica stops, the owner now settles it. */
const LOST = Symbol('lease lost');
/** What approving or settling a request recorded: the request afterwards and the service it left. */
interface Recorded {
  request: ChangeRequest;
  service: ServiceRecord | undefined;
}

const LOST_BEFORE_SENDING_TEXT =
  'This bot replica was held up long enough to lose its hold on the request (it was paused or cut off from its store), so it sent nothing to ClickHouse Cloud. Another replica settles the request and updates its message; look there.';
const LOST_AFTER_SENDING_TEXT =
  'Another bot replica took this request over while it was being applied; it checks the service and updates the request message with the outcome.';

function leaseTokenOf(request: ChangeRequest): LeaseToken {
  if (!request.lease) throw new Error(`change ${request.id}: claimed without a lease`);
  return {
    requestId: request.id,
    serviceId: request.plan.serviceId,
    owner: request.lease.owner,
    fence: request.lease.fence,
  };
}

interface AppliedOutcome {
  status: 'applied' | 'failed';
  audit: AuditAction;
  outcome: ChangeOutcome;
  service?: ServiceRecord;
}

function failed(error: unknown, what: string): AppliedOutcome {
  if (error instanceof CloudApiError) {
    return {
      status: 'failed',
      audit: 'failed',
      outcome: {
        message: `${what}: ${cloudErrorSentence(error)}`,
        ...(error.status === undefined ? {} : { status: error.status }),
        ...(error.requestId ? { apiRequestId: error.requestId } : {}),
      },
    };
  }
  return { status: 'failed', audit: 'failed', outcome: { message: `${what}: ${UNEXPECTED_IN_BOT}` } };
}

function refused(message: string, audit: AuditAction): AppliedOutcome {
  return { status: 'failed', audit, outcome: { message } };
}

function postFailureText(error: unknown): string {
  if (error instanceof MessengerError && error.reason === 'not-in-channel') {
    return ':x: The bot cannot post in this channel, so the change request was not created. Invite it with `/invite @ClickHouse` (or use a public channel) and try again.';
  }
  return ':x: The change request could not be posted in the channel, so it was not created. Try again in a minute.';
}

function inThread(request: ChangeRequest): { threadTs?: string } {
  return request.threadTs ? { threadTs: request.threadTs } : {};
}

function newRequestId(): string {
  return `CR-${randomBytes(5).toString('hex').toUpperCase()}`;
}
