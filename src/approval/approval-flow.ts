/**
 * The runner of the approval flow. Every decision is the core's: core/approval/filing.ts decides
 * filing, core/approval/step.ts (a request's life) and grant.ts (a temporary change's) decide
 * everything after. This file feeds the step events (a click, a sweep, a takeover) and
 * flow-effects.ts performs the effects it returns through the ports, one at a time, in order,
 * feeding back what they answer. filing.ts and follow-ons.ts gather the facts filing decides on.
 *
 * Exactly once, across replicas, pauses and crashes (the rules the runner enforces for the step):
 * - The store's atomic pending -> applying transition has one winner, who gets a lease with a
 *   fencing token and renews it while it works (lease.ts).
 * - Right before an operation goes on the wire (after any throttle wait) the store confirms the
 *   lease and the service's lock are still held, in the same step that marks the request as
 *   sending. A replica that lost its lease sends nothing; only the lease's holder records.
 * - Any replica takes over a request whose lease expired and settles it (reconcileAbandoned).
 */
import { confirmsByName } from '../core/change/kinds/index.js';
import { step } from '../core/approval/step.js';
import type { FlowContext, FlowEvent, FlowReply, FlowState, GrantAction } from '../core/approval/types.js';
import type { ChangeRequest } from '../core/change/types.js';
import type { Justification } from '../core/policy/justification.js';
import type {
  BreakGlassOutcome,
  ChangeRequestService,
  ClickOrigin,
  Decision,
  DecisionReply,
  NewChangeRequest,
  RequestOutcome,
} from '../ports/index.js';
import { Filing, type FileInput } from './filing.js';
import { FlowEffects } from './flow-effects.js';
import { cloudOf, replyOf, unseenBy, type ApprovalFlowOptions, type FlowKit, type Run } from './flow-kit.js';
import { FlowMessages } from './flow-messages.js';
import { LeasedSender } from './flow-lease.js';
import { FollowOns } from './follow-ons.js';
import { GrantIo } from './grant-io.js';
import { newLeaseOwner } from './lease.js';

export type { ApprovalFlowOptions } from './flow-kit.js';

const DEFAULT_LEASE_MS = 20_000;
const DEFAULT_SERVICE_LOCK_WAIT_MS = 120_000;
const DEFAULT_UPDATE_TIMEOUT_MS = 15_000;
const DEFAULT_RECHECK_DELAYS_MS = [2_000, 4_000];

export class ApprovalFlow implements ChangeRequestService {
  private readonly now: () => number;
  /** Runs in this process; shutdown waits for them. */
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly owner: string;
  readonly leaseMs: number;

  private readonly grants: GrantIo;
  private readonly sender: LeasedSender;
  private readonly filing: Filing;
  private readonly followOns: FollowOns;
  private readonly effects: FlowEffects;

  constructor(private readonly options: ApprovalFlowOptions) {
    this.now = options.now ?? Date.now;
    this.owner = options.owner ?? newLeaseOwner();
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    const { store, messenger, logger, onMissingRecord, consoleUrl } = options;
    const { deliverSecret, takeSecret } = options;
    this.sender = new LeasedSender({ store, leaseMs: this.leaseMs, logger, deliverSecret, takeSecret });
    this.grants = new GrantIo({
      store,
      cloudOf: (organization) => cloudOf(options, organization),
      messenger,
      logger,
      now: this.now,
      ...(onMissingRecord ? { onMissingRecord } : {}),
      ...(consoleUrl ? { consoleUrl } : {}),
    });
    const kit: FlowKit = {
      options,
      now: this.now,
      owner: this.owner,
      leaseMs: this.leaseMs,
      messages: new FlowMessages({ messenger, store, logger, ...(consoleUrl ? { consoleUrl } : {}) }),
      sender: this.sender,
      grants: this.grants,
      run: (state, first, origin) => this.run(state, first, origin),
      track: (work) => this.track(work),
    };
    this.filing = new Filing(kit);
    this.followOns = new FollowOns(kit, this.filing);
    this.effects = new FlowEffects(kit, this.followOns);
  }

  /** Plans the change against the service, stores it and posts it in the channel for approval. */
  request(input: NewChangeRequest): Promise<RequestOutcome> {
    return this.filing.request(input);
  }

  /** A planned request, filed under the rules in force (filing.ts). */
  file(input: FileInput): Promise<RequestOutcome> {
    return this.filing.file(input);
  }

  breakGlass(input: NewChangeRequest): Promise<BreakGlassOutcome> {
    return this.filing.breakGlass(input);
  }

  askAgain(id: string, userId: string, origin?: ClickOrigin): Promise<DecisionReply> {
    return this.followOns.askAgain(id, userId, origin);
  }

  /** At start: the reviews of applied break-glass changes a stopped replica did not file (follow-ons.ts). */
  fileOwedReviews(): Promise<number> {
    return this.followOns.fileOwedReviews();
  }

  decide(
    decision: Decision,
    id: string,
    userId: string,
    details: { reason?: string; origin?: ClickOrigin; confirmedName?: string } = {},
  ): Promise<DecisionReply> {
    return this.track(
      (async () => {
        const request = await this.options.store.get(id);
        const unseen = await unseenBy(this.options.policy, userId, request, details.origin);
        if (unseen) return unseen;
        const reason = details.reason ? { reason: details.reason } : {};
        const typed = details.confirmedName === undefined ? {} : { confirmedName: details.confirmedName };
        const clicked: FlowEvent = { type: 'clicked', decision, userId, ...reason, ...typed };
        const run = await this.run(idle(request), clicked, details.origin);
        return replyOf(run);
      })(),
    );
  }

  /** The name an approver types to approve this request (a delete), when it asks for one and still waits. */
  async nameToConfirm(id: string): Promise<string | undefined> {
    const request = await this.options.store.get(id);
    if (request?.status !== 'pending' || !confirmsByName(request.plan)) return undefined;
    return request.plan.serviceName;
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
      const run = await this.track(this.run(idle(request), { type: 'expiry-due', actorId }));
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
      const run = await this.track(this.run(idle(request), { type: 'schedule-due', actorId, graceMs, noticedAt }));
      if (run.state.request && run.state.request.status !== 'scheduled') started += 1;
    }
    return started;
  }

  /**
   * Applies a pending request that needs no approval (a revert: it only takes access back) through
   * the same exactly-once path as an approval; `actorId` is recorded as its approver.
   */
  applyUnreviewed(request: ChangeRequest, actorId: string): Promise<DecisionReply> {
    return this.track(this.run(idle(request), { type: 'apply-unreviewed', actorId }).then(replyOf));
  }

  /**
   * A grant's revert is due (the sweep): files its revert attempt if nobody did and applies it.
   * `failures`: its reverts that failed in a row here (the back-off). Answers what the run said.
   */
  async revertDue(originalId: string, actorId: string, failures: number): Promise<FlowReply | undefined> {
    const grant = await this.options.store.get(originalId);
    const event: FlowEvent = { type: 'revert-due', originalId, actorId, failures };
    return (await this.track(this.run(idle(grant), event))).reply;
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
        const unseen = await unseenBy(this.options.policy, userId, grant, origin);
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
        return replyOf(await this.run(idle(grant), event, origin));
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
      await this.run(idle(grant), { type: 'revert-settled', revert: request });
      return;
    }
    if (request.status !== 'applied' || !request.temporary) return;
    const grantId = request.extendOf ?? request.id;
    const dueAt = await this.grants.revertDueAt(grantId);
    const grant = request.extendOf ? await this.options.store.get(request.extendOf) : request;
    const event: FlowEvent = { type: 'grant-applied', applied: request, ...(dueAt === undefined ? {} : { dueAt }) };
    await this.run(idle(grant), event);
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
      const run = await this.run(idle(taken.request), { type: 'taken-over', request: taken.request });
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
        for (const effect of stepped.effects) event = (await this.effects.perform(effect, run)) ?? event;
      }
    } finally {
      this.effects.release(run);
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
}

/** A run's start: the request as read, nothing under way. */
const idle = (request: ChangeRequest | undefined): FlowState => ({ request, work: { phase: 'idle' } });
