/**
 * The effects of the step machine (core/approval/step.ts and grant.ts), performed through the
 * ports: the store's atomic steps, the lease and the service's lock, the Cloud API, Slack. An
 * effect that asks something answers with the event the runner feeds back; none decides.
 */
import { readPlanTarget } from './read-target.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Effect, FlowEvent } from '../core/approval/types.js';
import { changeSummary } from '../core/change/summary.js';
import type { ChangePlan, ChangeRequest } from '../core/change/types.js';
import { auditNoteText, completesText, logText, noteOutcome, outcomeRecord } from '../core/render/approval.js';
import { scheduledCompletesText } from '../core/render/scheduled.js';
import { messageOf } from '../core/render/errors.js';
import { countsForText } from '../core/render/policy.js';
import { CloudApiError } from '../core/service/api-error.js';
import type { ServiceRecord } from '../core/service/schema.js';
import { UnknownOrganizationError } from '../ports/index.js';
import { cloudOf, notify, type FlowKit, type Run } from './flow-kit.js';
import type { FollowOns } from './follow-ons.js';
import { isGrantEffect, performForGrant } from './grant-effects.js';

export class FlowEffects {
  constructor(
    private readonly kit: FlowKit,
    private readonly followOns: FollowOns,
  ) {}

  /** Performs one effect; an effect that asks something answers with the event to feed back. */
  async perform(effect: Effect, run: Run): Promise<FlowEvent | undefined> {
    const request = run.state.request;
    // These two need no request: a click on one long gone is answered; a grant's record may be lost.
    if (effect.type === 'reply') {
      run.reply = effect.reply;
      return undefined;
    }
    if (effect.type === 'log') {
      this.kit.options.logger[effect.level](
        logText(effect.fact, request?.id ?? '', request?.channelId ?? '', run.cause),
      );
      return undefined;
    }
    if (isGrantEffect(effect)) return performForGrant(this.kit, this.followOns, effect, run);
    if (!request) return undefined;
    const { store } = this.kit.options;
    switch (effect.type) {
      case 'create':
        await store.create(request);
        notify(this.kit.options, 'requested', request, request.requesterId);
        return { type: 'created' };
      case 'post-request': {
        const posted = await this.kit.messages.postRequest(request);
        if (posted.cause !== undefined) run.cause = posted.cause;
        return posted.event;
      }
      case 'record-message-ts':
        try {
          await store.setMessageTs(request.id, effect.ts, effect.approvalTs);
          return { type: 'message-ts-recorded' };
        } catch (error) {
          run.cause = messageOf(error);
          return { type: 'message-ts-failed' };
        }
      case 'check-policy':
        return {
          type: 'policy-answered',
          verdict: await this.kit.options.policy.check(effect.decision, effect.userId, request, run.origin),
        };
      case 'add-approval':
        run.claimAskedAt = performance.now();
        return { type: 'approval-recorded', result: await this.addApproval(request, effect) };
      case 'transition':
        if (effect.claim) run.claimAskedAt = performance.now();
        return { type: 'transitioned', result: await this.transition(request, effect, run) };
      case 'hold-lease':
        run.hold = this.kit.sender.hold(effect.request);
        return undefined;
      case 'release-lease':
        this.release(run);
        return undefined;
      case 'lock-service':
        return this.kit.sender.lockService(run.hold);
      case 'wait':
        await sleep(effect.jitter ? effect.ms * (0.5 + Math.random()) : effect.ms);
        return { type: 'waited' };
      case 'read-service':
        try {
          return { type: 'service-read', service: await this.freshService(request) };
        } catch (error) {
          if (error instanceof UnknownOrganizationError)
            return { type: 'read-failed', error: undefined, organizationGone: error.organization };
          return { type: 'read-failed', error: error instanceof CloudApiError ? error : undefined };
        }
      case 'judge-rules':
        try {
          const plan = await this.judgedPlan(request);
          const temporary = request.temporary !== undefined;
          return {
            type: 'rules-judged',
            rules: this.kit.options.policy.rulesFor(effect.service, plan, temporary).decision,
          };
        } catch {
          // The store could not give the grant an extension is judged by: not applied, as when the read fails.
          return { type: 'read-failed', error: undefined };
        }
      case 'send':
        return this.kit.sender.send(
          run.hold,
          cloudOf(this.kit.options, request.organization),
          effect.index,
          effect.operation,
          effect.service,
          request,
        );
      case 'record-confirmed':
        return { type: 'confirmed-recorded', result: await this.kit.sender.recordConfirmed(run.hold, effect.results) };
      case 'show':
        await this.kit.messages.refreshMessage(effect.request, () => this.surelyHeld(run));
        return undefined;
      case 'post-result':
        await this.kit.messages.postResult(effect.request, effect.service);
        return undefined;
      case 'post-correction':
        await this.kit.messages.correctIfSettledOtherwise(request, effect.apiRequestId);
        return undefined;
      case 'file-review':
        await this.followOns.fileReview(effect.original);
        return undefined;
      case 'follow-up':
        await this.followUp(effect.request);
        return undefined;
      case 'tell-requester':
        // In the background, in order within the run (approved before applied): a DM that is
        // slow or refused never holds up or fails the request.
        run.telling = (run.telling ?? Promise.resolve()).then(() =>
          this.kit.messages.tellRequester(effect.request, effect.news),
        );
        void this.kit.track(run.telling);
        return undefined;
    }
  }

  private addApproval(request: ChangeRequest, effect: Extract<Effect, { type: 'add-approval' }>) {
    return this.kit.options.store
      .addApproval(request.id, {
        approval: { userId: effect.approverId, at: effect.at, counts: effect.counts },
        audit: {
          summary: changeSummary(request.plan.changes),
          message: countsForText(request.requirements ?? [], effect.counts),
        },
        ...(effect.scheduleAt !== undefined
          ? { completesMessage: scheduledCompletesText(effect.scheduleAt), schedule: { at: effect.scheduleAt } }
          : { completesMessage: completesText(request), claim: { owner: this.kit.owner, ttlMs: this.kit.leaseMs } }),
      })
      .then((result) => {
        if (!result.ok && result.reason === 'expired')
          notify(this.kit.options, 'expired', result.request, effect.approverId);
        if (result.ok) this.kit.options.afterApproval?.(result.request);
        return result;
      });
  }

  private async transition(request: ChangeRequest, effect: Extract<Effect, { type: 'transition' }>, run: Run) {
    const noteText = effect.note ? auditNoteText(effect.note) : undefined;
    const outcome = effect.outcome ? outcomeRecord(effect.outcome) : effect.note ? noteOutcome(effect.note) : undefined;
    const message = noteText ?? outcome?.message;
    const holder = effect.holding ? run.hold?.lease.token : undefined;
    const attempt = this.kit.options.store.transition(request.id, {
      from: effect.from,
      to: effect.to,
      actorId: effect.actorId,
      now: this.kit.now(),
      ...(effect.claim ? { claim: { owner: this.kit.owner, ttlMs: this.kit.leaseMs } } : {}),
      ...(holder ? { holder } : {}),
      ...(outcome ? { outcome } : {}),
      audit: {
        action: effect.audit,
        ...(outcome?.apiRequestId ? { apiRequestId: outcome.apiRequestId } : {}),
        ...(message ? { message } : {}),
        summary: changeSummary(request.plan.changes),
      },
    });
    const result = effect.bestEffort
      ? await attempt.catch(() => ({ ok: false as const, reason: 'missing' as const }))
      : await attempt;
    // The request as it is after the move: `moved` (the Home tabs) reads who it concerns from it,
    // its decider included (unknown before a rejection).
    if (result.ok) {
      notify(this.kit.options, effect.audit, result.request, effect.actorId, outcome?.apiRequestId);
      if (effect.holding) run.recorded = true;
    } else if (result.reason === 'expired') notify(this.kit.options, 'expired', result.request, effect.actorId);
    return result;
  }

  /**
   * Whether no other replica can have taken the request over yet: this run holds its lease, and
   * less than half a lease has passed since it asked for it (a takeover waits for a whole lease
   * to run out). Then only this run can move it, and a message showing it applying is not stale.
   */
  private surelyHeld(run: Run): boolean {
    if (!run.hold || run.hold.lease.lost || run.claimAskedAt === undefined) return false;
    return performance.now() - run.claimAskedAt < this.kit.leaseMs / 2;
  }

  release(run: Run): void {
    if (!run.hold) return;
    this.kit.sender.release(run.hold);
    run.hold = undefined;
  }

  /** The plan a request's rules are judged by: an extension's are those of the grant it prolongs. */
  private async judgedPlan(request: ChangeRequest): Promise<ChangePlan> {
    if (!request.extendOf) return request.plan;
    return (await this.kit.options.store.get(request.extendOf))?.plan ?? request.plan;
  }

  private freshService(request: ChangeRequest): Promise<ServiceRecord | undefined> {
    const cloud = cloudOf(this.kit.options, request.organization);
    return readPlanTarget(cloud, request.plan, { fresh: true });
  }

  private async followUp(request: ChangeRequest): Promise<void> {
    await this.kit.options
      .afterSettled?.(request)
      .catch((error: unknown) =>
        this.kit.options.logger.warn(`change ${request.id}: follow-up failed: ${messageOf(error)}`),
      );
  }
}
