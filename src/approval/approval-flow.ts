/**
 * The runner of the approval flow. Every decision is core/approval/step.ts's: this file feeds it
 * events (a click, a takeover, what the store, the Cloud API and Slack answered) and performs the
 * effects it returns through the ports, one at a time, in order.
 *
 * Exactly once, across replicas, pauses and crashes (the rules the runner enforces for the step):
 * - The store's atomic pending -> applying transition has one winner, who gets a lease with a
 *   fencing token and renews it while it works (lease.ts).
 * - Right before an operation goes on the wire (after any throttle wait) the store confirms the
 *   lease and the service's lock are still held, in the same step that marks the request as
 *   sending. A replica that lost its lease sends nothing; only the lease's holder records.
 * - Any replica takes over a request whose lease expired and settles it (reconcileAbandoned).
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { step } from '../core/approval/step.js';
import {
  GRANT_EFFECTS,
  type Effect,
  type FlowContext,
  type FlowEvent,
  type FlowReply,
  type FlowState,
  type GrantAction,
} from '../core/approval/types.js';
import { planChange } from '../core/change/plan.js';
import { changeSummary } from '../core/change/summary.js';
import { operationsOf } from '../core/change/operations.js';
import { stackedGrantProblem, temporaryPlanProblem } from '../core/change/temporary.js';
import type { ChangePlan, ChangeRequest } from '../core/change/types.js';
import {
  auditNoteText,
  completesText,
  logText,
  noteOutcome,
  outcomeRecord,
  replyText,
} from '../core/render/approval.js';
import { scheduledCompletesText } from '../core/render/scheduled.js';
import { messageOf } from '../core/render/errors.js';
import { countsForText, deniedText, unjustifiedText } from '../core/render/policy.js';
import { asksOf, unjustified, type Justification } from '../core/policy/justification.js';
import { overlapWarnings } from './overlaps.js';
import { askAgainRefusedText, offersAskAgain, problemsText } from '../core/render/change.js';
import { filedText } from '../core/render/grant.js';
import { followOnNotAllowedText } from '../core/render/organizations.js';
import { timingOf } from '../core/policy/window.js';
import {
  breakGlassRefusalText,
  extensionOutsideWindowText,
  frozenText,
  neverOpenText,
} from '../core/render/breakglass.js';
import { breakGlassRefusal, reviewIdOf, reviewRequestOf } from '../core/policy/breakglass.js';
import { CloudApiError } from '../core/service/api-error.js';
import type { ServiceRecord } from '../core/service/schema.js';
import { freshEnoughToFile } from '../core/service/freshness.js';
import type {
  ApprovalPolicy,
  BreakGlassOutcome,
  ChangeEventOutcome,
  ChangeObserver,
  ChangeRequestService,
  ChangeStore,
  ClickOrigin,
  Decision,
  DecisionReply,
  Log,
  Messenger,
  NewChangeRequest,
  RequestOutcome,
  ServiceDirectory,
} from '../ports/index.js';
import { UnknownOrganizationError } from '../ports/index.js';
import { FlowMessages } from './flow-messages.js';
import { LeasedSender } from './flow-lease.js';
import { GrantIo } from './grant-io.js';
import { newLeaseOwner, type LeaseHold } from './lease.js';

export interface ApprovalFlowOptions {
  cloud: ServiceDirectory;
  /** Each organization's directory (ORGANIZATIONS_FILE); without it every request goes through `cloud`. */
  cloudOf?: (organization: string | undefined) => ServiceDirectory;
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
  /** Told with the request itself at each of those outcomes (the Home tabs); it must not block. */
  moved?: (request: ChangeRequest) => void;
  /** Told of every request that reached applied or failed (temporary changes follow up on it). */
  afterSettled?: (request: ChangeRequest) => Promise<void>;
  /** Told of every approval recorded, the request as it is now (the Home tabs); it must not block. */
  afterApproval?: (request: ChangeRequest) => void;
  /** Told of every request posted for approval (its approvers are messaged); never awaited by the requester. */
  afterFiled?: (request: ChangeRequest) => Promise<void>;
  /** SECURITY_CHANNEL: every break-glass change is announced there too. */
  securityChannel?: string;
  /** Told when a due revert finds its grant's record gone (a metric counts it). */
  onMissingRecord?: (id: string) => void;
}

const DEFAULT_LEASE_MS = 20_000;
const DEFAULT_SERVICE_LOCK_WAIT_MS = 120_000;
const DEFAULT_UPDATE_TIMEOUT_MS = 15_000;
const DEFAULT_RECHECK_DELAYS_MS = [2_000, 4_000];
/** A stale request is asked again once (a double click files one); a failed filing gives the claim back. */
const ASK_AGAIN_CLAIM_MS = 7 * 86_400_000;
const OBSERVED: ReadonlySet<string> = new Set<ChangeEventOutcome>([
  'requested',
  'applied',
  'failed',
  'stale',
  'rejected',
  'cancelled',
  'expired',
]);

/** What one run of the flow left behind: the reply for the person, and whether an outcome was recorded. */
interface Run {
  state: FlowState;
  reply?: FlowReply;
  /** The request's outcome was recorded by this run (applied or failed). */
  recorded: boolean;
  hold?: LeaseHold;
  /** The error behind the last failed effect, for the log line the step asks for. */
  cause?: string;
  /** The requester's DMs of this run, one after the other. */
  telling?: Promise<void>;
  /** When this run asked the store for the lease it holds (monotonic ms), before the answer came. */
  claimAskedAt?: number;
  /** Where the click this run answers came from (the policy judges a click from elsewhere). */
  origin?: ClickOrigin;
}

export class ApprovalFlow implements ChangeRequestService {
  private readonly now: () => number;
  /** Runs in this process; shutdown waits for them. */
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly owner: string;
  readonly leaseMs: number;

  private readonly grants: GrantIo;
  private readonly messages: FlowMessages;
  private readonly sender: LeasedSender;

  constructor(private readonly options: ApprovalFlowOptions) {
    this.now = options.now ?? Date.now;
    this.owner = options.owner ?? newLeaseOwner();
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    const { store, messenger, logger, onMissingRecord } = options;
    this.messages = new FlowMessages({ messenger, store, logger });
    this.sender = new LeasedSender({ store, leaseMs: this.leaseMs, logger });
    this.grants = new GrantIo({
      store,
      cloudOf: (organization) => this.cloudOf(organization),
      messenger,
      logger,
      now: this.now,
      ...(onMissingRecord ? { onMissingRecord } : {}),
    });
  }

  /** Plans the change against the service, stores it and posts it in the channel for approval. */
  async request(input: NewChangeRequest): Promise<RequestOutcome> {
    const planned = planChange(input.service, input.intent);
    if (!planned.ok) return { ok: false, problems: planned.problems };
    const notTemporary =
      input.temporary &&
      (temporaryPlanProblem(input.intent, planned.plan) ??
        stackedGrantProblem(planned.plan, await this.activeCapacityGrants(planned.plan)));
    if (notTemporary) return { ok: false, problems: [{ field: 'request', message: notTemporary }] };
    // Open requests changing the same thing are named in its warnings; the intent is kept so
    // that, refused as stale, it can be asked again as the service is then.
    const overlaps = await overlapWarnings(this.options.store, planned.plan, input, this.now());
    const warnings = [...planned.plan.warnings, ...overlaps];
    return this.file({ plan: { ...planned.plan, warnings, intent: input.intent }, ...input });
  }

  /**
   * Ask again, on a request refused as stale: the same change (what was asked, its reason, ticket
   * and duration), planned against the service as it is now and filed anew by its requester, once.
   */
  async askAgain(id: string, userId: string, origin?: ClickOrigin): Promise<DecisionReply> {
    const { store } = this.options;
    const original = await store.get(id);
    const intent = original?.plan.intent;
    if (!original || !intent || !offersAskAgain(original)) return { text: askAgainRefusedText('not-stale') };
    if (userId !== original.requesterId)
      return (await this.unseen(userId, original, origin)) ?? { text: askAgainRefusedText('not-requester', original) };
    // Filed on their behalf, not by a command: the channel's guardrails as they stand now.
    const refused = await this.options.policy.followOnRefusal?.(original);
    if (refused) return { text: followOnNotAllowedText('ask-again', refused) };
    const claim = `ask-again:${id}`;
    if (!(await store.claimOnce(claim, ASK_AGAIN_CLAIM_MS))) return { text: askAgainRefusedText('already') };
    const service = await this.freshService(original).catch(() => undefined);
    const outcome: RequestOutcome = service
      ? await this.request({
          channelId: original.channelId,
          ...(original.organization ? { organization: original.organization } : {}),
          userId,
          service,
          // Read afresh just now: filing judges the rules on it without a second read.
          serviceReadAt: Date.now(),
          intent,
          ...(original.temporary ? { temporary: original.temporary } : {}),
          ...(original.reason ? { reason: original.reason } : {}),
          ...(original.ticket ? { ticket: original.ticket } : {}),
        })
      : { ok: false, text: askAgainRefusedText('service-gone') };
    if (outcome.ok) return { text: filedText(outcome.request, 'the channel') };
    // Not filed (the change is no longer needed, a rule refuses it…): the button may be used again.
    await store.releaseClaim(claim).catch(() => undefined);
    return { text: 'text' in outcome ? outcome.text : problemsText(outcome.problems) };
  }

  /**
   * Stores a planned request under the rules in force for it and posts it for approval (in
   * `threadTs`'s thread when given); a request no rule asks approval for is applied at once.
   */
  async file(
    input: Omit<NewChangeRequest, 'intent'> &
      Pick<ChangeRequest, 'plan' | 'extendOf' | 'threadTs' | 'beneficiaryId' | 'undoOf'> & {
        /** Judge the request by the rules of this plan instead (an extension: the change it prolongs). */
        judgedAs?: ChangePlan;
        /** The service was just read afresh by the caller: no second read. */
        serviceIsFresh?: boolean;
      },
  ): Promise<RequestOutcome> {
    // The rules are judged on a fresh record: the one the request was planned on when it was read
    // a moment ago (no second read of the API's budget), else read again. Apply time reads the
    // service afresh and judges them again: a tag added since can never let the change through.
    const service =
      input.serviceIsFresh || freshEnoughToFile(input.serviceReadAt, Date.now())
        ? input.service
        : await this.freshOr(input.service, input.userId, input.organization);
    const ruling = this.options.policy.rulesFor(service, input.judgedAs ?? input.plan, input.temporary !== undefined);
    if (ruling.decision.kind === 'deny') return { ok: false, text: deniedText(ruling.decision) };
    // A reason or ticket a matching rule asks for is refused here, before anything is stored or
    // posted. Extend and Undo carry the original's (or what their form was given); when a rule
    // asks for more, their click asks for it in a form (`asks`).
    const lacking = unjustified(ruling.decision.requirements, { reason: input.reason, ticket: input.ticket });
    if (lacking && (input.extendOf || input.undoOf))
      return { ok: false, text: unjustifiedText(lacking, 'form'), asks: asksOf(ruling.decision.requirements) };
    if (lacking) return { ok: false, text: unjustifiedText(lacking, input.askedBy ?? 'command') };
    // Windows and freezes, judged at the time the change would apply: refused in a freeze, moved
    // to the next opening outside a window (a scheduled change the requester may cancel).
    const createdAt = this.now();
    // A time already past (a caller's slow path) is no schedule: the request is an ordinary one.
    const asked = input.applyAt !== undefined && input.applyAt > createdAt ? input.applyAt : undefined;
    const timing = timingOf(ruling.decision.requirements, asked ?? createdAt);
    if (timing.kind === 'frozen') return { ok: false, text: frozenText(timing) };
    if (timing.kind === 'never') return { ok: false, text: neverOpenText(timing) };
    // Deferred, an extension would apply after the revert it is meant to push back: refused instead.
    if (timing.kind === 'deferred' && input.extendOf) return { ok: false, text: extensionOutsideWindowText(timing) };
    const deferred = timing.kind === 'deferred' ? timing : undefined;
    const applyAt = deferred?.at ?? asked;
    const request: ChangeRequest = {
      id: newRequestId(),
      channelId: input.channelId,
      requesterId: input.userId,
      ...(input.organization ? { organization: input.organization } : {}),
      plan: input.plan,
      createdAt,
      expiresAt: this.expiryOf(createdAt, asked, deferred?.at),
      status: 'pending',
      ...(applyAt !== undefined ? { applyAt } : {}),
      requirements: [...ruling.decision.requirements],
      ...(ruling.digest ? { policyDigest: ruling.digest } : {}),
      ...(input.temporary ? { temporary: input.temporary } : {}),
      ...(input.extendOf ? { extendOf: input.extendOf } : {}),
      ...(input.beneficiaryId ? { beneficiaryId: input.beneficiaryId } : {}),
      ...(input.undoOf ? { undoOf: input.undoOf } : {}),
      ...(input.threadTs ? { threadTs: input.threadTs } : {}),
      ...(input.reason ? { reason: input.reason } : {}),
      ...(input.ticket ? { ticket: input.ticket } : {}),
    };
    const autoRules = ruling.decision.kind === 'auto' ? request.requirements?.map((r) => r.rule) : undefined;
    const filed = await this.run({ request, work: { phase: 'idle' } }, { type: 'file' });
    const reply = filed.reply;
    if (reply?.kind !== 'filed') return { ok: false, text: (reply && replyText(reply)) ?? '' };
    if (!autoRules) {
      const filedRequest = reply.request;
      void this.track(
        (this.options.afterFiled?.(filedRequest) ?? Promise.resolve()).catch((error: unknown) =>
          this.options.logger.warn(`change ${filedRequest.id}: telling its approvers failed: ${messageOf(error)}`),
        ),
      );
      return { ok: true, request: filedRequest, ...(deferred ? { deferred } : {}) };
    }
    await this.track(
      this.run(
        { request: reply.request, work: { phase: 'idle' } },
        { type: 'apply-unreviewed', actorId: request.requesterId, autoRules },
      ),
    );
    // Applied (or not) at once: the requester is told what became of it, not that it waits.
    const settled = await this.options.store.get(request.id).catch(() => undefined);
    return {
      ok: true,
      request: settled ? { ...settled, messageTs: settled.messageTs ?? reply.request.messageTs } : reply.request,
      ...(deferred ? { deferred } : {}),
    };
  }

  /**
   * A request asked for a time (`at`) may be approved until then (its time, or the window opening
   * it was moved to). One only deferred to its window's next opening keeps the usual approval time
   * when that opens sooner: asked a minute before the opening it must not expire a minute later.
   * Approved after the opening, it applies at once (or at the next opening if closed again).
   */
  private expiryOf(createdAt: number, asked: number | undefined, deferredTo: number | undefined): number {
    if (asked !== undefined) return deferredTo ?? asked;
    return Math.max(deferredTo ?? 0, createdAt + this.options.ttlMs);
  }

  async breakGlass(input: NewChangeRequest): Promise<BreakGlassOutcome> {
    const planned = planChange(input.service, input.intent);
    if (!planned.ok) return { ok: false, problems: planned.problems };
    const { plan } = planned;
    const notTemporary =
      input.temporary &&
      (temporaryPlanProblem(input.intent, plan) ?? stackedGrantProblem(plan, await this.activeCapacityGrants(plan)));
    if (notTemporary) return { ok: false, problems: [{ field: 'request', message: notTemporary }] };
    const { policy } = this.options;
    const service = freshEnoughToFile(input.serviceReadAt, Date.now())
      ? input.service
      : await this.freshOr(input.service, input.userId, input.organization);
    const ruling = policy.rulesFor(service, plan, true);
    const refusal = breakGlassRefusal(await policy.breakGlassTerms(input.userId), {
      reason: input.reason,
      durationMs: input.temporary?.durationMs,
      decision: ruling.decision,
    });
    if (refusal) return { ok: false, text: breakGlassRefusalText(refusal) };
    // breakGlassRefusal refuses every deny; this only tells the compiler.
    if (ruling.decision.kind === 'deny') return { ok: false, text: deniedText(ruling.decision) };
    const createdAt = this.now();
    const request: ChangeRequest = {
      id: newRequestId(),
      channelId: input.channelId,
      requesterId: input.userId,
      ...(input.organization ? { organization: input.organization } : {}),
      plan,
      createdAt,
      expiresAt: createdAt + this.options.ttlMs,
      status: 'pending',
      requirements: [...ruling.decision.requirements],
      ...(ruling.digest ? { policyDigest: ruling.digest } : {}),
      ...(input.temporary ? { temporary: input.temporary } : {}),
      ...(input.reason ? { reason: input.reason } : {}),
      ...(input.ticket ? { ticket: input.ticket } : {}),
      breakGlass: true,
    };
    const filed = await this.run({ request, work: { phase: 'idle' } }, { type: 'file' });
    const reply = filed.reply;
    if (reply?.kind !== 'filed') return { ok: false, text: (reply && replyText(reply)) ?? '' };
    await this.track(
      this.run({ request: reply.request, work: { phase: 'idle' } }, { type: 'break-glass', actorId: input.userId }),
    );
    const stored = await this.options.store.get(request.id).catch(() => undefined);
    const settled = stored ? { ...stored, messageTs: stored.messageTs ?? reply.request.messageTs } : reply.request;
    await this.messages.announceBreakGlass(this.options.securityChannel, settled);
    // Recording it applied filed its review (the step's file-review), in the same run.
    const review = settled.status === 'applied' ? await this.options.store.get(reviewIdOf(settled.id)) : undefined;
    return { ok: true, request: settled, ...(review ? { reviewId: review.id } : {}) };
  }

  /**
   * The review of an applied break-glass change: a request in its thread that sends nothing, which
   * an approver of its rules marks reviewed (Approve by another name) and which is reminded and
   * escalated like any waiting request until then. Filed once: the store creates it only if absent,
   * and only its creator posts it, whichever replica (or restart) got there first.
   */
  private async fileReview(original: ChangeRequest): Promise<void> {
    const requirement = this.options.policy.reviewRequirement(original.requirements ?? []);
    const review = reviewRequestOf(original, requirement, this.now());
    if (!(await this.options.store.createIfAbsent(review))) return;
    this.notify('requested', review, review.requesterId);
    // Created here: the ordinary filing goes on from there (posted in the thread, its ts recorded).
    const filed = await this.run({ request: review, work: { phase: 'filing' } }, { type: 'created' });
    if (filed.reply?.kind !== 'filed') {
      this.options.logger.error(`change ${original.id}: its break-glass review could not be filed`);
      return;
    }
    const posted = filed.reply.request;
    void this.track(
      (this.options.afterFiled?.(posted) ?? Promise.resolve()).catch((error: unknown) =>
        this.options.logger.warn(`change ${posted.id}: telling its reviewers failed: ${messageOf(error)}`),
      ),
    );
  }

  /**
   * At start: files the review of every applied break-glass change that has none, because the
   * replica applying it stopped between recording it and filing the review. Break-glass changes
   * are temporary, so each one not yet reverted is in the schedule of reverts.
   */
  async fileOwedReviews(): Promise<number> {
    const { store } = this.options;
    let filed = 0;
    for (const { id } of await store.scheduledReverts()) {
      const grant = await store.get(id);
      if (!grant?.breakGlass || grant.status !== 'applied' || (await store.get(reviewIdOf(id)))) continue;
      await this.track(this.fileReview(grant));
      filed += 1;
    }
    if (filed > 0) this.options.logger.info(`filed ${filed} break-glass review(s) a stopped replica had not filed`);
    return filed;
  }

  decide(
    decision: Decision,
    id: string,
    userId: string,
    details: { reason?: string; origin?: ClickOrigin } = {},
  ): Promise<DecisionReply> {
    return this.track(
      (async () => {
        const request = await this.options.store.get(id);
        const unseen = await this.unseen(userId, request, details.origin);
        if (unseen) return unseen;
        const reason = details.reason ? { reason: details.reason } : {};
        const run = await this.run(
          { request, work: { phase: 'idle' } },
          { type: 'clicked', decision, userId, ...reason },
          details.origin,
        );
        return replyOf(run);
      })(),
    );
  }

  /**
   * A click from outside the request's channels by someone who could not see it there is refused
   * before anything is said of the request (that it is settled, by whom, why it may not be approved).
   */
  private async unseen(
    userId: string,
    request: ChangeRequest | undefined,
    origin: ClickOrigin | undefined,
  ): Promise<DecisionReply | undefined> {
    if (!request || !origin) return undefined;
    const verdict = await this.options.policy.maySee(userId, request, origin);
    return verdict.allowed ? undefined : { text: replyText({ kind: 'not-allowed', reason: verdict.reason }) ?? '' };
  }

  /** Whether this person may reject the request now (a pending request, and the rules let them). */
  async mayReject(id: string, userId: string, origin?: ClickOrigin): Promise<boolean> {
    const request = await this.options.store.get(id);
    if (request?.status !== 'pending') return false;
    return (await this.options.policy.check('reject', userId, request, origin)).allowed;
  }

  /**
   * Ends requests whose expiry passed with nobody deciding: each is marked expired (once across
   * replicas: the store's transition decides), its messages say so and its requester is told.
   */
  async expireOverdue(actorId: string): Promise<number> {
    let expired = 0;
    for (const id of await this.options.store.listOverdue(this.now(), 100)) {
      const request = await this.options.store.get(id);
      if (request?.status !== 'pending') continue;
      const run = await this.track(this.run({ request, work: { phase: 'idle' } }, { type: 'expiry-due', actorId }));
      if (run.state.request?.status === 'expired') expired += 1;
    }
    return expired;
  }

  /**
   * Starts the scheduled requests whose time has come (the due-items tick): each is claimed by one
   * replica (the store's scheduled -> applying transition decides), read again and applied if the
   * service still looks as it did, or refused as stale. One noticed more than `graceMs` after its
   * time (the bot was down) ends expired instead, and its channel and requester are told.
   */
  async startDueScheduled(actorId: string, graceMs: number): Promise<number> {
    let started = 0;
    const noticedAt = this.now();
    for (const id of await this.options.store.dueScheduled(noticedAt, 20)) {
      const request = await this.options.store.get(id);
      if (request?.status !== 'scheduled') continue;
      const run = await this.track(
        this.run({ request, work: { phase: 'idle' } }, { type: 'schedule-due', actorId, graceMs, noticedAt }),
      );
      if (run.state.request && run.state.request.status !== 'scheduled') started += 1;
    }
    return started;
  }

  /**
   * Applies a pending request that needs no approval (a revert: it only takes access back) through
   * the same exactly-once path as an approval; `actorId` is recorded as its approver.
   */
  applyUnreviewed(request: ChangeRequest, actorId: string): Promise<DecisionReply> {
    return this.track(
      this.run({ request, work: { phase: 'idle' } }, { type: 'apply-unreviewed', actorId }).then(replyOf),
    );
  }

  /**
   * A grant's revert is due (the sweep): files its revert attempt if nobody did and applies it.
   * `failures`: its reverts that failed in a row here (the back-off). Answers what the run said.
   */
  async revertDue(originalId: string, actorId: string, failures: number): Promise<FlowReply | undefined> {
    const grant = await this.options.store.get(originalId);
    const event: FlowEvent = { type: 'revert-due', originalId, actorId, failures };
    return (await this.track(this.run({ request: grant, work: { phase: 'idle' } }, event))).reply;
  }

  /** Revert now, Extend or Undo, clicked on an applied request. */
  grantClicked(
    action: GrantAction,
    id: string,
    userId: string,
    origin?: ClickOrigin,
    given?: Justification,
  ): Promise<DecisionReply> {
    return this.track(
      (async () => {
        const grant = await this.options.store.get(id);
        const unseen = await this.unseen(userId, grant, origin);
        if (unseen) return unseen;
        const dueAt = action === 'extend' ? await this.grants.revertDueAt(id) : undefined;
        const revertedBy = action === 'undo' && grant?.temporary ? await this.grants.appliedRevertOf(id) : undefined;
        const event: FlowEvent = {
          type: 'grant-clicked',
          action,
          userId,
          ...(dueAt === undefined ? {} : { dueAt }),
          ...(revertedBy ? { revertedBy } : {}),
          ...(given ? { given } : {}),
        };
        return replyOf(await this.run({ request: grant, work: { phase: 'idle' } }, event, origin));
      })(),
    );
  }

  /**
   * After a request settled: a revert attempt's grant is done with or tried again later; an
   * applied grant (or an extension of it) says in its thread when the bot reverts it.
   */
  async grantSettled(request: ChangeRequest): Promise<void> {
    if (request.revertOf) {
      const grant = await this.options.store.get(request.revertOf);
      await this.run({ request: grant, work: { phase: 'idle' } }, { type: 'revert-settled', revert: request });
      return;
    }
    if (request.status !== 'applied' || !request.temporary) return;
    const grantId = request.extendOf ?? request.id;
    const dueAt = await this.grants.revertDueAt(grantId);
    const grant = request.extendOf ? await this.options.store.get(request.extendOf) : request;
    const event: FlowEvent = { type: 'grant-applied', applied: request, ...(dueAt === undefined ? {} : { dueAt }) };
    await this.run({ request: grant, work: { phase: 'idle' } }, event);
  }

  /**
   * Settles requests in "applying" whose owner stopped renewing its lease (SIGKILL, crash, a
   * frozen or cut-off process): takes each over with a new fencing token, so the old owner can no
   * longer send or record anything, then decides. A live owner's lease is never taken.
   */
  async reconcileAbandoned(): Promise<number> {
    let settled = 0;
    for (const request of await this.options.store.listApplying()) {
      if (this.sender.applyingHere.has(request.id)) continue;
      const taken = await this.options.store.takeOver(request, this.owner, this.leaseMs);
      if (!taken) continue;
      const run = await this.run(
        { request: taken.request, work: { phase: 'idle' } },
        { type: 'taken-over', request: taken.request },
      );
      if (run.recorded) settled += 1;
    }
    if (settled > 0)
      this.options.logger.info(`settled ${settled} change request(s) whose replica stopped while applying them`);
    return settled;
  }

  /** Resolves when every approval this process started has finished (for graceful shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
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

  /** Feeds the step one event, performs its effects in order, and feeds back what they answer. */
  private async run(state: FlowState, first: FlowEvent, origin?: ClickOrigin): Promise<Run> {
    const run: Run = { state, recorded: false, ...(origin ? { origin } : {}) };
    let event: FlowEvent | undefined = first;
    try {
      while (event) {
        const stepped = step(run.state, event, this.context());
        run.state = stepped.state;
        event = undefined;
        for (const effect of stepped.effects) event = (await this.perform(effect, run)) ?? event;
      }
    } finally {
      this.release(run);
    }
    return run;
  }

  private context(): FlowContext {
    return {
      now: this.now(),
      clock: Date.now(),
      leaseMs: this.leaseMs,
      lockWaitMs: this.options.serviceLockWaitMs ?? DEFAULT_SERVICE_LOCK_WAIT_MS,
      recheckDelaysMs: this.options.recheckDelaysMs ?? DEFAULT_RECHECK_DELAYS_MS,
      updateTimeoutMs: this.options.updateTimeoutMs ?? DEFAULT_UPDATE_TIMEOUT_MS,
    };
  }

  /** Performs one effect; an effect that asks something answers with the event to feed back. */
  private async perform(effect: Effect, run: Run): Promise<FlowEvent | undefined> {
    const request = run.state.request;
    // These two need no request: a click on one long gone is answered; a grant's record may be lost.
    if (effect.type === 'reply') {
      run.reply = effect.reply;
      return undefined;
    }
    if (effect.type === 'log') {
      this.options.logger[effect.level](logText(effect.fact, request?.id ?? '', request?.channelId ?? '', run.cause));
      return undefined;
    }
    if (isGrantEffect(effect)) return this.performForGrant(effect, run);
    if (!request) return undefined;
    const { store } = this.options;
    switch (effect.type) {
      case 'create':
        await store.create(request);
        this.notify('requested', request, request.requesterId);
        return { type: 'created' };
      case 'post-request': {
        const posted = await this.messages.postRequest(request);
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
          verdict: await this.options.policy.check(effect.decision, effect.userId, request, run.origin),
        };
      case 'add-approval':
        run.claimAskedAt = performance.now();
        return { type: 'approval-recorded', result: await this.addApproval(request, effect) };
      case 'transition':
        if (effect.claim) run.claimAskedAt = performance.now();
        return { type: 'transitioned', result: await this.transition(request, effect, run) };
      case 'hold-lease':
        run.hold = this.sender.hold(effect.request);
        return undefined;
      case 'release-lease':
        this.release(run);
        return undefined;
      case 'lock-service':
        return this.sender.lockService(run.hold);
      case 'wait':
        await sleep(effect.jitter ? effect.ms * (0.5 + Math.random()) : effect.ms);
        return { type: 'waited' };
      case 'read-service':
        try {
          const service = await this.freshService(request);
          const rules = service
            ? this.options.policy.rulesFor(service, await this.judgedPlan(request), request.temporary !== undefined)
                .decision
            : undefined;
          return { type: 'service-read', service, ...(rules ? { rules } : {}) };
        } catch (error) {
          if (error instanceof UnknownOrganizationError)
            return { type: 'read-failed', error: undefined, organizationGone: error.organization };
          return { type: 'read-failed', error: error instanceof CloudApiError ? error : undefined };
        }
      case 'send':
        return this.sender.send(run.hold, this.cloudOf(request.organization), effect.index, effect.operation);
      case 'record-confirmed':
        return { type: 'confirmed-recorded', result: await this.sender.recordConfirmed(run.hold, effect.results) };
      case 'show':
        await this.messages.refreshMessage(effect.request, () => this.surelyHeld(run));
        return undefined;
      case 'post-result':
        await this.messages.postResult(effect.request, effect.service);
        return undefined;
      case 'post-correction':
        await this.messages.correctIfSettledOtherwise(request, effect.apiRequestId);
        return undefined;
      case 'file-review':
        await this.fileReview(effect.original);
        return undefined;
      case 'follow-up':
        await this.followUp(effect.request);
        return undefined;
      case 'tell-requester':
        // In the background, in order within the run (approved before applied): a DM that is
        // slow or refused never holds up or fails the request.
        run.telling = (run.telling ?? Promise.resolve()).then(() =>
          this.messages.tellRequester(effect.request, effect.news),
        );
        void this.track(run.telling);
        return undefined;
    }
  }

  /** The effects about a grant (core/approval/grant.ts), through GrantIo and the flow itself. */
  private async performForGrant(effect: GrantEffect, run: Run): Promise<FlowEvent | undefined> {
    const io = this.grants;
    // The grant's record may be gone (a due revert of a lost request): only these effects then.
    switch (effect.type) {
      case 'count-missing-record':
        io.countMissingRecord(effect.originalId);
        return undefined;
      case 'postpone-revert':
        await io.postponeRevert(effect.originalId, effect.ms);
        return undefined;
      case 'forget-revert':
        await io.forgetRevert(effect.originalId);
        return undefined;
      default:
        break;
    }
    const grant = run.state.request;
    if (!grant) return undefined;
    switch (effect.type) {
      case 'check-may-act':
        return {
          type: 'may-act-answered',
          verdict: await this.options.policy.mayAct(effect.userId, grant, run.origin),
        };
      case 'read-revert':
        return { type: 'revert-read', latest: await io.latestRevert(grant.id) };
      case 'read-for-revert':
        return { type: 'revert-planning', ...(await io.revertInputs(grant)) };
      case 'file-revert':
        return { type: 'revert-filed', revert: await io.fileRevert(effect.candidate) };
      case 'apply-revert': {
        const applied = await this.run(
          { request: effect.revert, work: { phase: 'idle' } },
          { type: 'apply-unreviewed', actorId: effect.actorId },
        );
        const latest = await io.latestRevert(grant.id);
        const text = applied.reply && replyText(applied.reply);
        return { type: 'revert-ran', ...(text !== undefined && applied.reply ? { reply: applied.reply } : {}), latest };
      }
      case 'settle-unsent-revert':
        return { type: 'revert-unsent-settled', ok: await io.settleUnsentRevert(effect.revert, effect.actorId) };
      case 'close-reminder':
        await io.closeReminder(grant, effect.revertId);
        await io.markReverted(grant, effect.revertId);
        return undefined;
      case 'announce-revert':
        await io.announceRevert(grant, effect.applied, effect.dueAt);
        return undefined;
      case 'claim-click':
        return { type: 'click-claimed', ...(await io.claimClick(grant, effect.action)) };
      case 'release-click':
        await io.releaseClick(grant.id, effect.action);
        return undefined;
      case 'read-for-follow-on':
        try {
          return { type: 'follow-on-read', service: await io.readForFollowOn(grant, effect.userId) };
        } catch (error) {
          if (!(error instanceof CloudApiError)) throw error;
          return { type: 'follow-on-read', service: undefined, failed: error };
        }
      case 'file-follow-on':
        return { type: 'follow-on-filed', outcome: await this.fileFollowOn(grant, effect) };
    }
  }

  /** An extension (judged by the rules of the change it prolongs) or an undo, filed as a request of its own. */
  private async fileFollowOn(
    grant: ChangeRequest,
    effect: Extract<Effect, { type: 'file-follow-on' }>,
  ): Promise<RequestOutcome> {
    // The channel's guardrails as they stand now: a rule asking no approval would apply it at once.
    const refused = await this.options.policy.followOnRefusal?.(
      effect.action === 'undo' ? { ...grant, plan: effect.plan } : grant,
    );
    if (refused) return { ok: false, text: followOnNotAllowedText(effect.action, refused) };
    const common = {
      channelId: grant.channelId,
      userId: effect.userId,
      // An extension or undo changes the organization of the change it follows.
      ...(grant.organization ? { organization: grant.organization } : {}),
      service: effect.service,
      plan: effect.plan,
      serviceIsFresh: true,
      ...(grant.messageTs ? { threadTs: grant.messageTs } : {}),
      // Buttons: they carry the original's reason and ticket, shown with them, unless the form a
      // rule opened for the click was given others.
      ...justificationOf(effect.given ?? grant),
    };
    if (effect.action === 'undo') return this.file({ ...common, undoOf: grant.id });
    return this.file({
      ...common,
      judgedAs: grant.plan,
      beneficiaryId: grant.requesterId,
      ...(grant.temporary ? { temporary: grant.temporary } : {}),
      extendOf: grant.id,
    });
  }

  private addApproval(request: ChangeRequest, effect: Extract<Effect, { type: 'add-approval' }>) {
    return this.options.store
      .addApproval(request.id, {
        approval: { userId: effect.approverId, at: effect.at, counts: effect.counts },
        audit: {
          summary: changeSummary(request.plan.changes),
          message: countsForText(request.requirements ?? [], effect.counts),
        },
        ...(effect.scheduleAt !== undefined
          ? { completesMessage: scheduledCompletesText(effect.scheduleAt), schedule: { at: effect.scheduleAt } }
          : { completesMessage: completesText(request), claim: { owner: this.owner, ttlMs: this.leaseMs } }),
      })
      .then((result) => {
        if (!result.ok && result.reason === 'expired') this.notify('expired', result.request, effect.approverId);
        if (result.ok) this.options.afterApproval?.(result.request);
        return result;
      });
  }

  private async transition(request: ChangeRequest, effect: Extract<Effect, { type: 'transition' }>, run: Run) {
    const noteText = effect.note ? auditNoteText(effect.note) : undefined;
    const outcome = effect.outcome ? outcomeRecord(effect.outcome) : effect.note ? noteOutcome(effect.note) : undefined;
    const message = noteText ?? outcome?.message;
    const holder = effect.holding ? run.hold?.lease.token : undefined;
    const attempt = this.options.store.transition(request.id, {
      from: effect.from,
      to: effect.to,
      actorId: effect.actorId,
      now: this.now(),
      ...(effect.claim ? { claim: { owner: this.owner, ttlMs: this.leaseMs } } : {}),
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
      this.notify(effect.audit, result.request, effect.actorId, outcome?.apiRequestId);
      if (effect.holding) run.recorded = true;
    } else if (result.reason === 'expired') this.notify('expired', result.request, effect.actorId);
    return result;
  }

  /**
   * Whether no other replica can have taken the request over yet: this run holds its lease, and
   * less than half a lease has passed since it asked for it (a takeover waits for a whole lease
   * to run out). Then only this run can move it, and a message showing it applying is not stale.
   */
  private surelyHeld(run: Run): boolean {
    if (!run.hold || run.hold.lease.lost || run.claimAskedAt === undefined) return false;
    return performance.now() - run.claimAskedAt < this.leaseMs / 2;
  }

  private release(run: Run): void {
    if (!run.hold) return;
    this.sender.release(run.hold);
    run.hold = undefined;
  }

  /** The plan a request's rules are judged by: an extension's are those of the grant it prolongs. */
  /** Applied temporary capacity or power changes of the plan's service (none looked up for other plans). */
  private async activeCapacityGrants(plan: ChangePlan): Promise<ChangeRequest[]> {
    if (!operationsOf(plan).some((operation) => operation.endpoint !== 'update')) return [];
    const { store } = this.options;
    const grants = await Promise.all((await store.scheduledReverts()).map(({ id }) => store.get(id)));
    const applied = grants.filter(
      (grant): grant is ChangeRequest => grant?.status === 'applied' && grant.plan.serviceId === plan.serviceId,
    );
    // A temporary change still waiting for approval would stack just the same once both are approved.
    const waiting = (await store.listOpen(this.now(), 500)).filter(
      (other) => other.temporary && !other.extendOf && other.plan.serviceId === plan.serviceId,
    );
    return [...applied, ...waiting];
  }

  private async judgedPlan(request: ChangeRequest): Promise<ChangePlan> {
    if (!request.extendOf) return request.plan;
    return (await this.options.store.get(request.extendOf))?.plan ?? request.plan;
  }

  /** The service read afresh in the person's own lane; the given record if that read fails (apply time checks again). */
  private async freshOr(service: ServiceRecord, person: string, organization?: string): Promise<ServiceRecord> {
    try {
      return (
        (await this.cloudOf(organization).getService(service.id, { fresh: true, priority: 'command', person })) ??
        service
      );
    } catch {
      return service;
    }
  }

  private freshService(request: ChangeRequest): Promise<ServiceRecord | undefined> {
    return this.cloudOf(request.organization).getService(request.plan.serviceId, { fresh: true });
  }

  /** The directory of the request's organization (the default one for requests stored before organizations). */
  private cloudOf(organization: string | undefined): ServiceDirectory {
    return this.options.cloudOf?.(organization) ?? this.options.cloud;
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
    this.options.moved?.(request);
  }

  private async followUp(request: ChangeRequest): Promise<void> {
    await this.options
      .afterSettled?.(request)
      .catch((error: unknown) =>
        this.options.logger.warn(`change ${request.id}: follow-up failed: ${messageOf(error)}`),
      );
  }
}

type GrantEffect = Extract<Effect, { type: (typeof GRANT_EFFECTS)[number] }>;

/** Effects about a grant (core/approval/grant.ts). */
function isGrantEffect(effect: Effect): effect is GrantEffect {
  return (GRANT_EFFECTS as readonly string[]).includes(effect.type);
}

function replyOf(run: Run): DecisionReply {
  const text = run.reply && replyText(run.reply);
  if (text === undefined) return undefined;
  if (run.reply?.kind !== 'follow-on-unjustified') return { text };
  const { action, originalId, asks } = run.reply;
  return { text, form: { action, originalId, asks } };
}

function justificationOf(given: Justification): Justification {
  return { ...(given.reason ? { reason: given.reason } : {}), ...(given.ticket ? { ticket: given.ticket } : {}) };
}

function newRequestId(): string {
  return `CR-${randomBytes(5).toString('hex').toUpperCase()}`;
}
