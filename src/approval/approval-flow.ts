/**
 * The life of a change request: planned and posted for approval, then approved (applied exactly
 * once), rejected, cancelled or expired. Exactly-once rests on the store's atomic transition
 * pending -> applying: whoever wins it is the only one that calls the API.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AuditAction } from '../core/change/audit.js';
import { planChange } from '../core/change/plan.js';
import { staleFields } from '../core/change/state.js';
import type { ChangeOutcome, ChangePlan, ChangeRequest, ChangeStatus } from '../core/change/types.js';
import { planIsVisible } from '../core/change/verify.js';
import { changeSummary } from '../core/change/summary.js';
import { alreadyDecidedText, requestMessage } from '../core/render/change.js';
import { approvalNotCountedText, approvalRecordedText, countsForText, deniedText } from '../core/render/policy.js';
import { cloudErrorSentence } from '../core/render/errors.js';
import { esc } from '../core/render/mrkdwn.js';
import { serviceBlocks } from '../core/render/service.js';
import { CloudApiError } from '../core/service/api-error.js';
import type { ServiceRecord } from '../core/service/schema.js';
import {
  MessengerError,
  type ApprovalPolicy,
  type ChangeRequestService,
  type ChangeStore,
  type Decision,
  type DecisionReply,
  type Log,
  type Messenger,
  type NewChangeRequest,
  type RequestOutcome,
  type ServiceDirectory,
} from '../ports/index.js';

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
}

export class ApprovalFlow implements ChangeRequestService {
  private readonly now: () => number;
  /** Approvals running in this process; shutdown waits for them. */
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Ids of the requests this process is applying right now; never reconciled from here. */
  private readonly applyingHere = new Set<string>();

  constructor(private readonly options: ApprovalFlowOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Plans the change against the service, stores it and posts it in the channel for approval. */
  async request(input: NewChangeRequest): Promise<RequestOutcome> {
    const planned = planChange(input.service, input.intent);
    if (!planned.ok) return { ok: false, problems: planned.problems };
    const ruling = this.options.policy.rulesFor(input.service, planned.plan);
    if (ruling.decision.kind === 'deny') return { ok: false, text: deniedText(ruling.decision) };
    const createdAt = this.now();
    const request: ChangeRequest = {
      id: newRequestId(),
      channelId: input.channelId,
      requesterId: input.userId,
      plan: planned.plan,
      createdAt,
      expiresAt: createdAt + this.options.ttlMs,
      status: 'pending',
      requirements: [...ruling.decision.requirements],
      ...(ruling.digest ? { policyDigest: ruling.digest } : {}),
    };
    await this.options.store.create(request);
    let ts: string;
    try {
      ts = await this.options.messenger.post(request.channelId, requestMessage(request));
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
      this.options.logger.error(`change ${request.id}: posted but its message could not be recorded: ${String(error)}`);
      const withdrawn = await this.transition(request, ['pending'], 'cancelled', request.requesterId, 'cancelled', { message: 'The bot could not record this request, so it was withdrawn. Ask again in a minute.' }).catch(() => undefined);
      if (withdrawn?.ok) await this.refreshMessage({ ...withdrawn.request, messageTs: ts });
      return { ok: false, text: ':x: The request was posted but the bot could not record it, so it was withdrawn. Try again in a minute.' };
    }
    if (ruling.decision.kind === 'auto') await this.track(this.applyWithoutApproval(posted));
    return { ok: true, request: posted };
  }

  decide(decision: Decision, id: string, userId: string): Promise<DecisionReply> {
    return this.track(this.decideNow(decision, id, userId));
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
   * Settles requests left in "applying" by a replica that died between claiming and recording
   * (SIGKILL, crash, lost Redis). Only requests claimed longer ago than `olderThanMs` are touched,
   * so an approval still running on a live replica is left alone. The service as it is now
   * decides: applied if it shows the change, failed otherwise; the channel sees the outcome.
   */
  async reconcileStuck(olderThanMs: number): Promise<number> {
    const cutoff = this.now() - olderThanMs;
    const stuck = (await this.options.store.listApplying()).filter((r) => (r.decidedAt ?? r.createdAt) <= cutoff && !this.applyingHere.has(r.id));
    for (const request of stuck) {
      const outcome = await this.settleStuck(request);
      const settled = await this.transition(request, ['applying'], outcome.status, request.decidedBy ?? request.requesterId, outcome.audit, outcome.outcome);
      if (settled.ok) {
        await this.refreshMessage(settled.request);
        if (outcome.service) await this.postResult(settled.request, outcome.service);
      }
    }
    if (stuck.length > 0) this.options.logger.info(`reconciled ${stuck.length} change request(s) left in "applying"`);
    return stuck.length;
  }

  private async settleStuck(request: ChangeRequest): Promise<AppliedOutcome> {
    const note = 'The bot stopped while applying this change; it was checked against the service afterwards';
    try {
      const service = await this.freshService(request.plan.serviceId);
      if (service && planIsVisible(request.plan, service)) {
        return { status: 'applied', audit: 'applied', outcome: { message: `${note}, which shows it.` }, service };
      }
      return refused(`${note}, which does not show it. Ask again if it is still needed.`, 'failed');
    } catch (error) {
      return failed(error, `${note}, but the service could not be read; look at it with the show command`);
    }
  }

  /** Resolves when every approval this process started has finished (for graceful shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  private async decideNow(decision: Decision, id: string, userId: string): Promise<DecisionReply> {
    const request = await this.options.store.get(id);
    if (!request) return { text: 'This change request no longer exists: it expired a long time ago. Ask again if it is still needed.' };
    if (request.status !== 'pending') return { text: alreadyDecidedText(request) };
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
  private async approve(request: ChangeRequest, approverId: string, counts: readonly number[] | undefined): Promise<DecisionReply> {
    const requirements = request.requirements ?? [];
    const given = counts ?? requirements.map((_, index) => index);
    const recorded = await this.options.store.addApproval(request.id, {
      approval: { userId: approverId, at: this.now(), counts: [...(given.length > 0 ? given : [0])] },
      audit: { summary: changeSummary(request.plan.changes), message: countsForText(requirements, given) },
      completesMessage: 'The last approval needed: applying the change.',
    });
    if (!recorded.ok) {
      if (recorded.reason === 'already-approved' || recorded.reason === 'not-needed') return { text: approvalNotCountedText(recorded.request, recorded.reason) };
      return this.lostRace(recorded);
    }
    if (!recorded.complete) {
      await this.refreshLatest(recorded.request);
      return { text: approvalRecordedText(recorded.request) };
    }
    return this.applyAsClaimed(recorded.request, approverId);
  }

  /** Every matching rule asks for no approval: the same exactly-once path, with the requester as actor. */
  private async applyWithoutApproval(request: ChangeRequest): Promise<DecisionReply> {
    const rules = (request.requirements ?? []).map((r) => r.rule).join(', ');
    const claimed = await this.transition(request, ['pending'], 'applying', request.requesterId, 'approved', undefined, `No approval needed under the policy rule(s): ${rules}.`);
    if (!claimed.ok) return this.lostRace(claimed);
    return this.applyAsClaimed(claimed.request, request.requesterId);
  }

  private async applyAsClaimed(request: ChangeRequest, approverId: string): Promise<DecisionReply> {
    this.applyingHere.add(request.id);
    try {
      return await this.applyClaimed(request, approverId);
    } finally {
      this.applyingHere.delete(request.id);
    }
  }

  private async applyClaimed(request: ChangeRequest, approverId: string): Promise<DecisionReply> {
    await this.refreshMessage(request);
    const outcome = await this.apply(request);
    const finished = await this.transition(request, ['applying'], outcome.status, approverId, outcome.audit, outcome.outcome);
    if (!finished.ok) {
      this.options.logger.error(`change ${request.id}: could not record outcome ${outcome.status}`);
      return { text: 'The bot could not record the outcome of this request. Look at the service with the show command before doing anything else.' };
    }
    await this.refreshMessage(finished.request);
    if (outcome.service) await this.postResult(finished.request, outcome.service);
    return undefined;
  }

  /** Re-reads the service, refuses a stale change, applies it once, and decides what happened. */
  private async apply(request: ChangeRequest): Promise<AppliedOutcome> {
    const { plan } = request;
    let current: ServiceRecord | undefined;
    try {
      current = await this.freshService(plan.serviceId);
    } catch (error) {
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
    try {
      const result = await this.options.cloud.updateService(plan.serviceId, plan.update);
      return { status: 'applied', audit: 'applied', outcome: { apiRequestId: result.requestId }, service: result.service };
    } catch (error) {
      if (error instanceof CloudApiError && !error.certainlyNotApplied) return this.reconcile(plan, error);
      return failed(error, 'ClickHouse Cloud did not apply the change');
    }
  }

  /** The update's outcome is unknown (timeout, 5xx, dropped connection): look, do not replay. */
  private async reconcile(plan: ChangePlan, error: CloudApiError): Promise<AppliedOutcome> {
    // The server may still be applying it: look a few times before concluding.
    for (const delay of [0, ...(this.options.recheckDelaysMs ?? [2_000, 4_000])]) {
      if (delay > 0) await sleep(delay);
      try {
        const now = await this.freshService(plan.serviceId);
        if (now && planIsVisible(plan, now)) {
          return { status: 'applied', audit: 'applied', outcome: { message: 'Confirmed by re-reading the service after the API call did not answer cleanly.', apiRequestId: error.requestId }, service: now };
        }
      } catch {
        return failed(error, 'The outcome is unknown: look at the service with the show command before asking again');
      }
    }
    return failed(error, 'The change was not applied: the service still does not show it a few seconds later. Look at it with the show command before asking again');
  }

  private freshService(serviceId: string): Promise<ServiceRecord | undefined> {
    return this.options.cloud.getService(serviceId, { fresh: true });
  }

  private transition(request: ChangeRequest, from: ChangeStatus[], to: ChangeStatus, actorId: string, action: AuditAction, outcome?: ChangeOutcome, auditMessage?: string) {
    const message = auditMessage ?? outcome?.message;
    return this.options.store.transition(request.id, {
      from,
      to,
      actorId,
      now: this.now(),
      ...(outcome ? { outcome } : {}),
      audit: { action, ...(outcome?.apiRequestId ? { apiRequestId: outcome.apiRequestId } : {}), ...(message ? { message } : {}), summary: changeSummary(request.plan.changes) },
    });
  }

  private async lostRace(result: { ok: false; reason: 'missing' } | { ok: false; reason: string; request: ChangeRequest }): Promise<DecisionReply> {
    if (!('request' in result)) return { text: 'This change request no longer exists.' };
    if (result.reason === 'expired') {
      await this.refreshMessage(result.request);
      return { text: ':hourglass_flowing_sand: This change request has expired, so nothing was changed. Ask again if it is still needed.' };
    }
    return { text: alreadyDecidedText(result.request) };
  }

  /**
   * After an approval that did not complete the request: another replica may have recorded a
   * later one meanwhile, so the message shows the request as the store has it now.
   */
  private async refreshLatest(request: ChangeRequest): Promise<void> {
    const latest = (await this.options.store.get(request.id).catch(() => undefined)) ?? request;
    await this.refreshMessage({ ...latest, messageTs: latest.messageTs ?? request.messageTs });
  }

  private async refreshMessage(request: ChangeRequest): Promise<void> {
    if (!request.messageTs) return;
    try {
      await this.options.messenger.update(request.channelId, request.messageTs, requestMessage(request));
    } catch (error) {
      this.options.logger.warn(`change ${request.id}: could not update its message: ${String(error)}`);
    }
  }

  private async postResult(request: ChangeRequest, service: ServiceRecord): Promise<void> {
    try {
      await this.options.messenger.post(request.channelId, {
        text: esc(`Applied change ${request.id} to ${service.name}`),
        blocks: serviceBlocks(service, `${service.name || service.id}: after change ${request.id}`),
      });
    } catch (error) {
      this.options.logger.warn(`change ${request.id}: could not post the resulting service: ${String(error)}`);
    }
  }

  /** A request nobody could see must not stay approvable. */
  private async withdrawUnposted(request: ChangeRequest, error: unknown): Promise<void> {
    this.options.logger.warn(`change ${request.id}: could not post it in ${request.channelId}: ${String(error)}`);
    await this.transition(request, ['pending'], 'cancelled', request.requesterId, 'cancelled', {
      message: 'The request could not be posted in the channel.',
    }).catch(() => undefined);
  }
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
  return { status: 'failed', audit: 'failed', outcome: { message: `${what}: an unexpected error happened in the bot.` } };
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

function newRequestId(): string {
  return `CR-${randomBytes(5).toString('hex').toUpperCase()}`;
}

