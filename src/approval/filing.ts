/**
 * Filing a change request: a person's command or form, break-glass, and the Extend and Undo the
 * bot files on a click (follow-ons.ts). This file gathers the facts (the plan, a fresh record of
 * the service, the policy's ruling on it, the break-glass terms) and performs what
 * core/approval/filing.ts decides: refused in a sentence, or filed through the step machine and
 * left for approval, applied at once (no rule asks approval), or applied by break-glass.
 */
import { freshEnoughToFile } from '../core/service/freshness.js';
import type { RuleAsks } from '../core/approval/types.js';
import { decideFiling, type FilingDecision, type FilingFacts, type FilingOrigin } from '../core/approval/filing.js';
import { planChange } from '../core/change/plan.js';
import { operationsOf } from '../core/change/operations.js';
import { stackedGrantProblem, temporaryPlanProblem } from '../core/change/temporary.js';
import type { ChangePlan, ChangeRequest } from '../core/change/types.js';
import { replyText } from '../core/render/approval.js';
import { filingRefusalText } from '../core/render/filing.js';
import { reviewIdOf } from '../core/policy/breakglass.js';
import type { LiveLoadNote } from '../core/service/load.js';
import type { ServiceRecord } from '../core/service/schema.js';
import type { BreakGlassOutcome, NewChangeRequest, RequestOutcome } from '../ports/index.js';
import { cloudOf, newRequestId, tellApprovers, type FlowKit } from './flow-kit.js';
import { LiveLoadReader } from './live-load.js';
import { overlapWarnings } from './overlaps.js';
import { withParts } from './read-target.js';
import { partsOfIntent } from '../core/change/kinds/index.js';

/** A planned request to file, as `ApprovalFlow.file` takes it. */
export type FileInput = Omit<NewChangeRequest, 'intent'> &
  Pick<ChangeRequest, 'plan' | 'extendOf' | 'threadTs' | 'beneficiaryId' | 'undoOf'> & {
    /** Judge the request by the rules of this plan instead (an extension: the change it prolongs). */
    judgedAs?: ChangePlan;
    /** The service was just read afresh by the caller: no second read. */
    serviceIsFresh?: boolean;
  };

export class Filing {
  /** Shared by every request this flow files: one metrics read per service every 30 s. */
  private readonly loads: LiveLoadReader;

  constructor(private readonly kit: FlowKit) {
    this.loads = new LiveLoadReader({
      cloudOf: (organization) => cloudOf(kit.options, organization),
      now: kit.now,
      ...kit.options.liveLoad,
    });
  }

  /** Plans the change against the service, stores it and posts it in the channel for approval. */
  async request(input: NewChangeRequest): Promise<RequestOutcome> {
    const planned = await this.planned(input);
    if (!planned.ok) return planned;
    // Open requests changing the same thing are named in its warnings; the intent is kept so
    // that, refused as stale, it can be asked again as the service is then.
    // A risky change shows its approvers the service's live load, read while the overlaps are looked up.
    const [overlaps, liveLoad] = await Promise.all([
      overlapWarnings(this.kit.options.store, planned.plan, input, this.kit.now()),
      this.liveLoadOf(planned.plan, input.service, input),
    ]);
    const warnings = [...planned.plan.warnings, ...overlaps];
    const plan = { ...planned.plan, warnings, intent: input.intent, ...(liveLoad ? { liveLoad } : {}) };
    return this.file({ plan, ...input });
  }

  /**
   * Stores a planned request under the rules in force for it and posts it for approval (in
   * `threadTs`'s thread when given); a request no rule asks approval for is applied at once.
   */
  async file(input: FileInput): Promise<RequestOutcome> {
    // The rules are judged on a fresh record: the one the request was planned on when it was read
    // a moment ago (no second read of the API's budget), else read again. Apply time reads the
    // service afresh and judges them again: a tag added since can never let the change through.
    const service =
      input.serviceIsFresh || freshEnoughToFile(input.serviceReadAt, Date.now())
        ? input.service
        : await this.freshOr(input.service, input.userId, input.organization);
    const origin: FilingOrigin = input.extendOf
      ? {
          kind: 'extend',
          extendOf: input.extendOf,
          ...(input.beneficiaryId ? { beneficiaryId: input.beneficiaryId } : {}),
        }
      : input.undoOf
        ? { kind: 'undo', undoOf: input.undoOf }
        : { kind: 'person', askedBy: input.askedBy ?? 'command' };
    const ruling = this.kit.options.policy.rulesFor(
      service,
      input.judgedAs ?? input.plan,
      input.temporary !== undefined,
    );
    // An Undo can be a risky change too (the Undo of a start is a stop): its approvers see the load.
    const liveLoad = input.undoOf ? await this.liveLoadOf(input.plan, service, input) : undefined;
    const plan = liveLoad ? { ...input.plan, liveLoad } : input.plan;
    const decision = decideFiling({ ...this.factsOf({ ...input, plan }, ruling), origin });
    if (decision.kind === 'refused') return refusedOutcome(decision);
    const { request, next, deferred } = decision;
    const filed = await this.posted(request);
    if (!filed.ok) return filed;
    const when = deferred ? { deferred } : {};
    if (next.kind === 'approval') {
      tellApprovers(this.kit, filed.request);
      return { ok: true, request: filed.request, ...when };
    }
    const autoRules = next.kind === 'auto' ? next.rules : undefined;
    await this.kit.track(
      this.kit.run(
        { request: filed.request, work: { phase: 'idle' } },
        { type: 'apply-unreviewed', actorId: request.requesterId, ...(autoRules ? { autoRules } : {}) },
      ),
    );
    // Applied (or not) at once: the requester is told what became of it, not that it waits.
    return { ok: true, request: await this.settled(filed.request), ...when };
  }

  async breakGlass(input: NewChangeRequest): Promise<BreakGlassOutcome> {
    const planned = await this.planned(input);
    if (!planned.ok) return planned;
    const { policy } = this.kit.options;
    const service = freshEnoughToFile(input.serviceReadAt, Date.now())
      ? input.service
      : await this.freshOr(input.service, input.userId, input.organization);
    const ruling = policy.rulesFor(service, planned.plan, true);
    const terms = await policy.breakGlassTerms(input.userId);
    const decision = decideFiling({
      ...this.factsOf({ ...input, plan: planned.plan }, ruling),
      origin: { kind: 'break-glass', terms },
    });
    if (decision.kind === 'refused') return refusedOutcome(decision);
    const filed = await this.posted(decision.request);
    if (!filed.ok) return filed;
    await this.kit.track(
      this.kit.run({ request: filed.request, work: { phase: 'idle' } }, { type: 'break-glass', actorId: input.userId }),
    );
    const settled = await this.settled(filed.request);
    await this.kit.messages.announceBreakGlass(this.kit.options.securityChannel, settled);
    // Recording it applied filed its review (the step's file-review), in the same run.
    const review = settled.status === 'applied' ? await this.kit.options.store.get(reviewIdOf(settled.id)) : undefined;
    return { ok: true, request: settled, ...(review ? { reviewId: review.id } : {}) };
  }

  /** The change planned against the service; a temporary one only if it may be (not stacked on another). */
  private async planned(
    input: NewChangeRequest,
  ): Promise<{ ok: true; plan: ChangePlan } | Extract<RequestOutcome, { ok: false; problems: unknown }>> {
    const service = await withParts(
      cloudOf(this.kit.options, input.organization),
      input.service,
      partsOfIntent(input.intent),
      { fresh: true, priority: 'command', person: input.userId },
    );
    const planned = planChange(service, input.intent);
    if (!planned.ok) return { ok: false, problems: planned.problems };
    const notTemporary =
      input.temporary &&
      (temporaryPlanProblem(input.intent, planned.plan) ??
        stackedGrantProblem(planned.plan, await this.activeCapacityGrants(planned.plan)));
    if (notTemporary) return { ok: false, problems: [{ field: 'request', message: notTemporary }] };
    return { ok: true, plan: planned.plan };
  }

  /** The live load a risky plan is filed with (approval/live-load.ts); undefined for any other. */
  private liveLoadOf(
    plan: ChangePlan,
    service: ServiceRecord,
    input: Pick<FileInput, 'userId' | 'organization'>,
  ): Promise<LiveLoadNote | undefined> {
    return this.loads.noteFor({
      plan,
      service,
      person: input.userId,
      ...(input.organization ? { organization: input.organization } : {}),
    });
  }

  private factsOf(input: Omit<FileInput, 'service'>, ruling: FilingFacts['ruling']): Omit<FilingFacts, 'origin'> {
    return {
      id: newRequestId(),
      now: this.kit.now(),
      ttlMs: this.kit.options.ttlMs,
      ruling,
      channelId: input.channelId,
      userId: input.userId,
      ...(input.organization ? { organization: input.organization } : {}),
      plan: input.plan,
      ...(input.temporary ? { temporary: input.temporary } : {}),
      ...(input.reason ? { reason: input.reason } : {}),
      ...(input.ticket ? { ticket: input.ticket } : {}),
      ...(input.applyAt !== undefined ? { applyAt: input.applyAt } : {}),
      ...(input.threadTs ? { threadTs: input.threadTs } : {}),
    };
  }

  /** Stored and posted through the step machine (`file`), or the sentence saying why not. */
  private async posted(
    request: ChangeRequest,
  ): Promise<{ ok: true; request: ChangeRequest } | { ok: false; text: string }> {
    const filed = await this.kit.run({ request, work: { phase: 'idle' } }, { type: 'file' });
    const reply = filed.reply;
    if (reply?.kind !== 'filed') return { ok: false, text: (reply && replyText(reply)) ?? '' };
    return { ok: true, request: reply.request };
  }

  /** The request as stored after it was applied (or not), with the message it was posted in. */
  private async settled(filed: ChangeRequest): Promise<ChangeRequest> {
    const stored = await this.kit.options.store.get(filed.id).catch(() => undefined);
    return stored ? { ...stored, messageTs: stored.messageTs ?? filed.messageTs } : filed;
  }

  /** Applied temporary capacity or power changes of the plan's service (none looked up for other plans). */
  private async activeCapacityGrants(plan: ChangePlan): Promise<ChangeRequest[]> {
    if (!operationsOf(plan).some((operation) => operation.endpoint !== 'update')) return [];
    const { store } = this.kit.options;
    const grants = await Promise.all((await store.scheduledReverts()).map(({ id }) => store.get(id)));
    const applied = grants.filter(
      (grant): grant is ChangeRequest => grant?.status === 'applied' && grant.plan.serviceId === plan.serviceId,
    );
    // A temporary change still waiting for approval would stack just the same once both are approved.
    const waiting = (await store.listOpen(this.kit.now(), 500)).filter(
      (other) => other.temporary && !other.extendOf && other.plan.serviceId === plan.serviceId,
    );
    return [...applied, ...waiting];
  }

  /** The service read afresh in the person's own lane; the given record if that read fails (apply time checks again). */
  private async freshOr(service: ServiceRecord, person: string, organization?: string): Promise<ServiceRecord> {
    try {
      return (
        (await cloudOf(this.kit.options, organization).getService(service.id, {
          fresh: true,
          priority: 'command',
          person,
        })) ?? service
      );
    } catch {
      return service;
    }
  }
}

function refusedOutcome(decision: Extract<FilingDecision, { kind: 'refused' }>): {
  ok: false;
  text: string;
  asks?: readonly RuleAsks[];
} {
  const { refusal } = decision;
  const text = filingRefusalText(refusal);
  return refusal.kind === 'ask-in-form' ? { ok: false, text, asks: refusal.asks } : { ok: false, text };
}
