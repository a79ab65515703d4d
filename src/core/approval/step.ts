/**
 * The approval flow's decision function: step(state, event, context) -> next state + effects.
 * Pure and total: no I/O, no clock but the context's, no randomness; an event that does not
 * apply in a state leaves it unchanged and says why (`ignored`).
 *
 * The guarantees the runner relies on:
 * - Only the store's atomic steps move a request (create, addApproval, transition, takeOver);
 *   the step asks for them and learns their result as an event, so two replicas never both win.
 * - An operation is sent only while this process holds the request's lease and the service's
 *   lock, after a fresh read showed the service as the request saw it (apply) or showed the
 *   earlier operations done (settle); each operation at most once per hold.
 * - "applied" is recorded only after the API answered every operation, or a fresh read shows it.
 * - A final status never moves: events about a settled request are ignored.
 */
import { staleLabels } from '../change/state.js';
import { operationsOf, operationVisible } from '../change/operations.js';
import { FINAL_STATUSES, type ChangeRequest, type OperationResult } from '../change/types.js';
import { rulesGrown } from '../policy/evaluate.js';
import { unjustified } from '../policy/justification.js';
import type { PolicyDecision } from '../policy/types.js';
import { timingOf } from '../policy/window.js';
import type { ServiceRecord } from '../service/schema.js';
import { GRANT_MACHINE, isGrantEvent, isGrantEventType, type GrantEventType } from './grant.js';
import { dispatch, movesOf, on, type Machine, type Phase } from './machine.js';
import { finish, ignored, inPhase, next, reply } from './results.js';
import type {
  ApplyMode,
  Effect,
  FlowContext,
  FlowEvent,
  FlowOutcome,
  FlowState,
  RequesterNews,
  StepResult,
  StoreTransitionResult,
  Work,
} from './types.js';

/** Polling for a busy service lock: quick enough to follow a finished change at once (the runner adds jitter). */
export const SERVICE_LOCK_POLL_MS = 100;

export function step(state: FlowState, event: FlowEvent, context: FlowContext): StepResult {
  // A final status never moves; a click on a settled request is still answered (it says so).
  // Events about a grant concern an applied request and never move it (grant.ts).
  const exempt = event.type === 'clicked' || isGrantEvent(event);
  if (state.request && FINAL_STATUSES.includes(state.request.status) && !exempt)
    return ignored(state, `the request is already ${state.request.status}`);
  return isGrantEvent(event)
    ? dispatch(GRANT_MACHINE, state, event, context)
    : dispatch(REQUEST_MACHINE, state, event, context);
}

/** Where an event may lead from a phase, as the two machines declare it (empty: it does not apply there). */
export function declaredMoves(phase: Phase, type: FlowEvent['type']): readonly Phase[] {
  return isGrantEventType(type) ? movesOf(GRANT_MACHINE, phase, type) : movesOf(REQUEST_MACHINE, phase, type);
}

/** The events of a request's life: filing, deciding, applying (the rest are a grant's, grant.ts). */
export type RequestEventType = Exclude<FlowEvent['type'], GrantEventType>;

/** A request's life, event by event: where each applies, where it may lead, and the handler deciding which. */
export const REQUEST_MACHINE: Machine<RequestEventType> = {
  file: on({ idle: ['filing'] }, (state, event) => {
    if (!state.request || state.work.phase !== 'idle') return ignored(state, 'only a new request is filed');
    return next(state.request, { phase: 'filing', ...(event.autoRules ? { auto: event.autoRules } : {}) }, [
      { type: 'create' },
    ]);
  }),
  created: on({ filing: ['filing'] }, (state) =>
    inPhase(state, 'filing', (request, work) => next(request, work, [{ type: 'post-request' }])),
  ),
  posted: on({ filing: ['filing'] }, (state, event) =>
    inPhase(state, 'filing', (request, work) => {
      const posted = { ...request, messageTs: event.ts, ...(event.approvalTs ? { approvalTs: event.approvalTs } : {}) };
      const ts = event.approvalTs ? { ts: event.ts, approvalTs: event.approvalTs } : { ts: event.ts };
      return next(posted, work, [{ type: 'record-message-ts', ...ts }]);
    }),
  ),
  'post-failed': on({ filing: ['withdrawing'] }, (state, event) =>
    inPhase(state, 'filing', (request) =>
      next(request, { phase: 'withdrawing', why: 'unposted', notInChannel: event.notInChannel, ...channelOf(event) }, [
        { type: 'log', level: 'warn', fact: { kind: 'not-posted' } },
        withdraw(request, 'withdrawn-unposted'),
      ]),
    ),
  ),
  'message-ts-recorded': on({ filing: ['done'] }, (state) =>
    inPhase(state, 'filing', (request, work) =>
      finish(request, [
        { type: 'reply', reply: { kind: 'filed', request, ...(work.auto ? { autoRules: work.auto } : {}) } },
      ]),
    ),
  ),
  'message-ts-failed': on({ filing: ['withdrawing'] }, (state) =>
    inPhase(state, 'filing', (request) =>
      next(request, { phase: 'withdrawing', why: 'unrecorded' }, [
        { type: 'log', level: 'error', fact: { kind: 'message-ts-not-recorded' } },
        withdraw(request, 'withdrawn-unrecorded'),
      ]),
    ),
  ),

  clicked: on({ idle: ['checking', 'done'] }, (state, event) => {
    if (state.work.phase !== 'idle') return ignored(state, 'a click starts a run of its own');
    const { request } = state;
    if (!request) return finish(undefined, [reply({ kind: 'gone-long-ago' })]);
    const { decision, userId } = event;
    // A scheduled request waits for its time: only Cancel still applies (the policy checks who may).
    const cancelsScheduled = request.status === 'scheduled' && decision === 'cancel';
    if (request.status !== 'pending' && !cancelsScheduled)
      return finish(request, [reply({ kind: 'already-decided', request })]);
    if (request.revertOf) return finish(request, [reply({ kind: 'revert-needs-no-decision' })]);
    if (request.reviewOf && decision !== 'approve') return finish(request, [reply({ kind: 'review-only' })]);
    const reason = decision === 'reject' && event.reason ? { reason: event.reason } : {};
    return next(request, { phase: 'checking', decision, userId, ...reason }, [
      { type: 'check-policy', decision, userId },
    ]);
  }),
  'policy-answered': on({ checking: ['deciding', 'done'] }, (state, event, context) =>
    inPhase(state, 'checking', (request, work) => {
      const { verdict } = event;
      if (!verdict.allowed) return finish(request, [reply({ kind: 'not-allowed', reason: verdict.reason })]);
      const deciding: Work = {
        phase: 'deciding',
        decision: work.decision,
        userId: work.userId,
        ...(work.reason ? { reason: work.reason } : {}),
      };
      if (work.decision === 'approve') {
        const given = verdict.counts ?? (request.requirements ?? []).map((_, index) => index);
        const counts = given.length > 0 ? [...given] : [0];
        const scheduleAt = waitsForItsTime(request, context)
          ? { scheduleAt: request.applyAt }
          : deferredToWindow(request, context.now);
        return next(request, deciding, [
          { type: 'add-approval', approverId: work.userId, at: context.now, counts, ...scheduleAt },
        ]);
      }
      const to = work.decision === 'reject' ? 'rejected' : 'cancelled';
      const note = work.reason ? { note: { kind: 'rejected-because' as const, reason: work.reason } } : {};
      const from = request.status === 'scheduled' ? (['scheduled'] as const) : (['pending'] as const);
      return next(request, deciding, [{ type: 'transition', from, to, actorId: work.userId, audit: to, ...note }]);
    }),
  ),
  'approval-recorded': on({ deciding: ['locking', 'reading', 'done'] }, (state, event, context) =>
    inPhase(state, 'deciding', (request, work) => {
      const { result } = event;
      if (!result.ok) {
        if (result.reason === 'already-approved' || result.reason === 'not-needed')
          return finish(result.request, [
            reply({ kind: 'approval-not-counted', request: result.request, reason: result.reason }),
          ]);
        if (result.reason === 'missing') return lostRace(result);
        return lostRace({ ok: false, reason: result.reason, request: result.request });
      }
      if (!result.complete)
        return finish(result.request, [
          { type: 'show', request: result.request },
          reply({ kind: 'approval-recorded', request: result.request }),
        ]);
      // The store moved it to "scheduled": it waits for its time, the due-items tick applies it.
      if (result.request.status === 'scheduled')
        return finish(result.request, [
          { type: 'show', request: result.request },
          ...tell(result.request, { kind: 'approved', by: work.userId }),
          reply({ kind: 'scheduled', request: result.request }),
        ]);
      return beginApply(
        result.request,
        work.userId,
        context,
        tell(result.request, { kind: 'approved', by: work.userId }),
        result.serviceLocked,
      );
    }),
  ),

  'apply-unreviewed': on({ idle: ['claiming', 'scheduling', 'done'] }, (state, event, context) => {
    if (state.work.phase !== 'idle') return ignored(state, 'applying starts a run of its own');
    const { request } = state;
    if (!request) return finish(undefined, [reply({ kind: 'gone' })]);
    if (request.status !== 'pending') return finish(request, [reply({ kind: 'already-decided', request })]);
    const auto = event.autoRules ? { note: { kind: 'auto-approved' as const, rules: event.autoRules } } : {};
    if (waitsForItsTime(request, context))
      return next(request, { phase: 'scheduling' }, [
        { type: 'transition', from: ['pending'], to: 'scheduled', actorId: event.actorId, audit: 'approved', ...auto },
      ]);
    return next(request, { phase: 'claiming', actorId: event.actorId }, [
      {
        type: 'transition',
        from: ['pending'],
        to: 'applying',
        actorId: event.actorId,
        audit: 'approved',
        claim: true,
        ...(event.autoRules ? { note: { kind: 'auto-approved', rules: event.autoRules } } : {}),
      },
    ]);
  }),

  'break-glass': on({ idle: ['claiming', 'done'] }, (state, event) => {
    if (state.work.phase !== 'idle') return ignored(state, 'break-glass starts a run of its own');
    const { request } = state;
    if (!request) return finish(undefined, [reply({ kind: 'gone' })]);
    if (request.status !== 'pending' || !request.breakGlass)
      return finish(request, [reply({ kind: 'already-decided', request })]);
    return next(request, { phase: 'claiming', actorId: event.actorId }, [
      {
        type: 'transition',
        from: ['pending'],
        to: 'applying',
        actorId: event.actorId,
        audit: 'break-glass',
        claim: true,
        note: { kind: 'break-glass', reason: request.reason ?? '' },
      },
    ]);
  }),

  'schedule-due': on({ idle: ['claiming', 'expiring'] }, (state, event, context) => {
    const { request, work } = state;
    if (!request || work.phase !== 'idle') return ignored(state, 'the due-items tick starts a run of its own');
    if (request.status !== 'scheduled') return ignored(state, `the request is ${request.status}, not scheduled`);
    const dueAt = request.applyAt ?? request.expiresAt;
    if (context.now < dueAt) return ignored(state, 'its time has not come yet');
    if ((event.noticedAt ?? context.now) > dueAt + event.graceMs)
      return next(request, { phase: 'expiring' }, [
        {
          type: 'transition',
          from: ['scheduled'],
          to: 'expired',
          actorId: event.actorId,
          audit: 'expired',
          note: { kind: 'schedule-missed', dueAt, graceMs: event.graceMs },
        },
      ]);
    // The claim is the store's compare-and-set: of two replicas noticing it, one applies it.
    const actorId = request.decidedBy ?? request.requesterId;
    return next(request, { phase: 'claiming', actorId }, [
      {
        type: 'transition',
        from: ['scheduled'],
        to: 'applying',
        actorId: event.actorId,
        audit: 'approved',
        claim: true,
        note: { kind: 'schedule-started' },
      },
    ]);
  }),

  'expiry-due': on({ idle: ['expiring'] }, (state, event, context) => {
    const { request, work } = state;
    if (!request || work.phase !== 'idle') return ignored(state, 'the expiry sweep starts a run of its own');
    if (request.status !== 'pending') return ignored(state, `the request is ${request.status}, not waiting`);
    if (context.now < request.expiresAt) return ignored(state, 'the request has not expired yet');
    return next(request, { phase: 'expiring' }, [
      { type: 'transition', from: ['pending'], to: 'expired', actorId: event.actorId, audit: 'expired' },
    ]);
  }),

  transitioned: on(
    {
      claiming: ['locking', 'reading', 'done'],
      deciding: ['done'],
      scheduling: ['done'],
      expiring: ['done'],
      withdrawing: ['done'],
      recording: ['done'],
    },
    (state, event, context) => {
      const { work, request } = state;
      const { result } = event;
      if (!request) return ignored(state, 'no request to transition');
      switch (work.phase) {
        case 'expiring':
          // Another replica's sweep or a click got there first: it told everyone.
          if (!result.ok) return finish('request' in result ? result.request : undefined, []);
          return finish(result.request, [
            { type: 'show', request: result.request },
            ...tell(result.request, { kind: 'expired' }),
          ]);
        case 'withdrawing':
          return withdrawn(request, work, result);
        case 'scheduling':
          if (!result.ok) return lostRace(result);
          return finish(result.request, [{ type: 'show', request: result.request }]);
        case 'deciding': {
          if (!result.ok) return lostRace(result);
          const rejected =
            work.decision === 'reject'
              ? tell(result.request, {
                  kind: 'rejected',
                  by: work.userId,
                  ...(work.reason ? { reason: work.reason } : {}),
                })
              : work.decision === 'cancel'
                ? tell(result.request, { kind: 'cancelled', by: work.userId })
                : [];
          return finish(result.request, [{ type: 'show', request: result.request }, ...rejected]);
        }
        case 'claiming':
          if (!result.ok) return lostRace(result);
          return beginApply(result.request, work.actorId, context, [], result.serviceLocked);
        case 'recording':
          return recorded(request, work, result);
        default:
          return ignored(state, `no transition was asked in phase ${work.phase}`);
      }
    },
  ),

  'taken-over': on({ idle: ['locking', 'recording'] }, (state, event, context) => {
    if (state.work.phase !== 'idle') return ignored(state, 'a takeover starts a run of its own');
    const request = event.request;
    const actorId = request.decidedBy ?? request.requesterId;
    const previous = request.lease;
    const hold: Effect = { type: 'hold-lease', request };
    // Fence 1 after a takeover: nobody ever held a lease on it (claimed by a replica older than
    // leases), so whether the update went out is unknown and only the service can tell.
    if (previous?.sending === false && previous.fence > 1)
      return record(request, actorId, 'settle', failure('stopped-before-sending'), [hold]);
    // An operation sent by the old owner may still be on its way: it left within a quarter lease of
    // being confirmed (or never), and its request times out after the API timeout.
    const lateBy =
      (previous?.sentAt ?? 0) + context.leaseMs / 4 + context.updateTimeoutMs + 1_000 - (previous?.takenAt ?? 0);
    const locking: Work = {
      phase: 'locking',
      actorId,
      mode: 'settle',
      deadline: context.clock,
      waitedFrom: context.clock,
    };
    if (previous?.sentAt !== undefined && lateBy > 0)
      return next(request, locking, [hold, { type: 'wait', ms: lateBy }]);
    return next(request, locking, [hold, { type: 'lock-service' }]);
  }),

  'lock-answered': on({ locking: ['reading', 'locking', 'recording', 'done'] }, (state, event, context) =>
    inPhase(state, 'locking', (request, work) => {
      if (event.leaseLost || event.attempt === 'lost') return stopHolding(request, work.mode);
      // Settling: the service's lock passed with the takeover; 'busy' only if its day-long backstop ran out.
      if (event.attempt === 'acquired' || work.mode === 'settle')
        return next(request, { phase: 'reading', actorId: work.actorId, mode: work.mode, attempt: 0 }, [
          { type: 'read-service' },
        ]);
      if (context.clock >= work.deadline)
        return record(
          request,
          work.actorId,
          'apply',
          failure('lock-timeout', { waitedMs: work.deadline - work.waitedFrom }),
        );
      return next(request, work, [{ type: 'wait', ms: SERVICE_LOCK_POLL_MS, jitter: true }]);
    }),
  ),

  waited: on({ locking: ['locking'], reading: ['reading'], reconciling: ['reconciling'] }, (state) => {
    const { request, work } = state;
    if (!request) return ignored(state, 'no request');
    if (work.phase === 'locking') return next(request, work, [{ type: 'lock-service' }]);
    if (work.phase === 'reading' || work.phase === 'reconciling')
      return next(request, work, [{ type: 'read-service' }]);
    return ignored(state, `nothing waits in phase ${work.phase}`);
  }),

  'service-read': on(
    {
      reading: ['judging', 'sending', 'confirming', 'reading', 'recording'],
      reconciling: ['sending', 'confirming', 'reconciling', 'recording'],
    },
    (state, event, context) => {
      const { request, work } = state;
      if (!request) return ignored(state, 'no request');
      if (work.phase === 'reading')
        return work.mode === 'apply'
          ? checkBeforeSending(request, work.actorId, event.service, context.now)
          : lookAfterTakeover(request, work, event.service, context);
      if (work.phase === 'reconciling') return reconcileRead(request, work, event.service, context);
      return ignored(state, `no read was asked in phase ${work.phase}`);
    },
  ),

  'rules-judged': on({ judging: ['sending', 'recording'] }, (state, event, context) =>
    inPhase(state, 'judging', (request, work) => checkTheRules(request, work.actorId, event.rules, context.now)),
  ),

  'read-failed': on({ reading: ['recording'], judging: ['recording'], reconciling: ['recording'] }, (state, event) => {
    const { request, work } = state;
    if (!request) return ignored(state, 'no request');
    // Judging: the store could not say which plan an extension is judged by.
    if (work.phase === 'judging')
      return record(request, work.actorId, 'apply', failure('read-before-apply', { error: event.error }));
    if (work.phase === 'reading') {
      if (work.mode === 'apply') {
        const gone = event.organizationGone === undefined ? {} : { organizationGone: event.organizationGone };
        return record(request, work.actorId, work.mode, failure('read-before-apply', { error: event.error, ...gone }));
      }
      return record(request, work.actorId, work.mode, failure('settled-read-failed', { error: event.error }));
    }
    if (work.phase === 'reconciling')
      return record(request, work.actorId, work.mode, failure('unknown-outcome', { error: work.error }, work.results));
    return ignored(state, `no read was asked in phase ${work.phase}`);
  }),

  'operation-answered': on({ sending: ['sending', 'confirming', 'recording'] }, (state, event) =>
    inPhase(state, 'sending', (request, work) => {
      if (event.index !== work.index) return ignored(state, `operation ${event.index} was not the one sent`);
      const operation = operationsOf(request.plan)[work.index];
      const result: OperationResult = {
        index: work.index,
        endpoint: operation?.endpoint ?? 'update',
        status: 'applied',
        apiRequestId: event.apiRequestId,
      };
      return afterOperation(request, work.actorId, work.mode, [...work.results, result], event.service);
    }),
  ),

  'operation-failed': on({ sending: ['reconciling', 'recording'] }, (state, event) =>
    inPhase(state, 'sending', (request, work) => {
      if (event.index !== work.index) return ignored(state, `operation ${event.index} was not the one sent`);
      const { error } = event;
      const endpoint = operationsOf(request.plan)[work.index]?.endpoint ?? 'update';
      if (error && !error.certainlyNotApplied) {
        // The outcome is unknown (timeout, 5xx, dropped connection): look, do not replay.
        const reconciling: Work = { ...work, phase: 'reconciling', attempt: 0, error };
        return next(request, reconciling, [{ type: 'read-service' }]);
      }
      const results: OperationResult[] = [
        ...work.results,
        {
          index: work.index,
          endpoint,
          status: 'failed',
          ...(error?.requestId ? { apiRequestId: error.requestId } : {}),
        },
      ];
      return record(request, work.actorId, work.mode, failure('api-refused', { error }, results));
    }),
  ),

  'send-refused': on({ sending: ['done'] }, (state, event) =>
    inPhase(state, 'sending', (request, work) => {
      if (event.index !== work.index) return ignored(state, `operation ${event.index} was not the one sent`);
      return stopHolding(request, work.mode, work.results.length > 0);
    }),
  ),

  'confirmed-recorded': on({ confirming: ['sending', 'recording', 'done'] }, (state, event) =>
    inPhase(state, 'confirming', (request, work) => {
      // The lease is gone: the new owner resumes from what the store holds; nothing more is sent here.
      if (event.result === 'lost') return stopHolding(request, work.mode, true);
      // Unrecorded (the store is unreachable): sent anyway, as before there was a record; a
      // takeover then judges these operations from the service itself.
      const confirmed = event.result === 'recorded' ? { ...request, confirmed: work.results } : request;
      return sendNext(confirmed, work.actorId, work.mode, work.results, work.service);
    }),
  ),
};

// ---------------------------------------------------------------------------------------------
// Applying

/**
 * Applying starts under the lease the claim took: with the service's lock (the claim took it too
 * when it was free, in the same store step), straight to the fresh read; else by asking for it.
 */
function beginApply(
  request: ChangeRequest,
  actorId: string,
  context: FlowContext,
  before: Effect[] = [],
  serviceLocked = false,
): StepResult {
  const holding: Effect[] = [...before, { type: 'hold-lease', request }, { type: 'show', request }];
  if (serviceLocked)
    return next(request, { phase: 'reading', actorId, mode: 'apply', attempt: 0 }, [
      ...holding,
      { type: 'read-service' },
    ]);
  return next(
    request,
    {
      phase: 'locking',
      actorId,
      mode: 'apply',
      deadline: context.clock + context.lockWaitMs,
      waitedFrom: context.clock,
    },
    [...holding, { type: 'lock-service' }],
  );
}

/**
 * Fresh read under the lock: refuse a stale change, then have the rules in force judged on the
 * record (a revert only takes access back: it is never held to them).
 */
function checkBeforeSending(
  request: ChangeRequest,
  actorId: string,
  service: ServiceRecord | undefined,
  now: number,
): StepResult {
  const { plan } = request;
  // A break-glass review sends nothing: marking it reviewed is the whole of it.
  if (request.reviewOf) return record(request, actorId, 'apply', { status: 'applied', audit: 'reviewed' });
  if (!service) return record(request, actorId, 'apply', failure('service-gone'));
  const labels = staleLabels(plan, service);
  if (labels.length > 0) return record(request, actorId, 'apply', failure('stale', { labels }, undefined, 'stale'));
  if (request.revertOf) return checkTheRules(request, actorId, undefined, now);
  return next(request, { phase: 'judging', actorId, service }, [{ type: 'judge-rules', service }]);
}

/** The rules in force as judged on the fresh record: refuse what they no longer allow, else send the first operation. */
function checkTheRules(
  request: ChangeRequest,
  actorId: string,
  rules: PolicyDecision | undefined,
  now: number,
): StepResult {
  const skipped = skippedAtApply(request, rules, now);
  if (skipped) return record(request, actorId, 'apply', skipped);
  if (request.breakGlass) return afterOperation(request, actorId, 'apply', [], undefined);
  // The rules are judged again on the record the change applies to: a tag added since the request
  // was made must not let it through under the rules it had. A revert only takes access back.
  const grown = rules && !request.revertOf ? rulesGrown(request.requirements, rules) : undefined;
  if (grown) return record(request, actorId, 'apply', { status: 'failed', audit: 'failed', failure: grown });
  // Likewise a reason or ticket a rule now asks for (Extend and Undo too: they carry the original's
  // or what their form was given); a revert is the grant's own end, approved with it.
  const judged = rules?.kind !== 'deny' && !request.revertOf;
  const lacking = rules && judged ? unjustified(rules.requirements, request) : undefined;
  if (lacking) return record(request, actorId, 'apply', failure('unjustified-now', { lacking }));
  // An extension of a temporary change sends nothing: approving it moves the revert (in the store).
  return afterOperation(request, actorId, 'apply', [], undefined);
}

/**
 * Break-glass skips approvals, windows and freezes but never a deny rule; any other change is
 * refused if a freeze of its rules began since it was asked, or its window closed before it was
 * approved. A revert is never held back.
 */
function skippedAtApply(
  request: ChangeRequest,
  rules: PolicyDecision | undefined,
  now: number | undefined,
): FlowOutcome | undefined {
  if (request.revertOf) return undefined;
  if (request.breakGlass)
    return rules?.kind === 'deny'
      ? { status: 'failed', audit: 'failed', failure: { kind: 'denied-now', rule: rules.rule, text: rules.text } }
      : undefined;
  const timing = now === undefined ? undefined : timingOf(request.requirements ?? [], now);
  if (timing?.kind === 'frozen')
    return failure('frozen', { rule: timing.rule, reason: timing.freeze.reason, until: timing.until });
  // Approved after its window closed (asked inside it): never applied outside it. Deferring it
  // here would need the store to move an approved request's applyAt; asking again defers it.
  if (timing?.kind === 'deferred' || timing?.kind === 'never')
    return failure('outside-window', {
      rules: timing.rules.map((r) => r.rule),
      ...(timing.kind === 'deferred' ? { opensAt: timing.at } : {}),
    });
  return undefined;
}

/** The next operation to send, or the outcome once every one was answered. */
function afterOperation(
  request: ChangeRequest,
  actorId: string,
  mode: ApplyMode,
  results: OperationResult[],
  service: ServiceRecord | undefined,
  note?: 'confirmed-by-reread' | 'resumed',
): StepResult {
  const operations = operationsOf(request.plan);
  if (results.length < operations.length) {
    // Each confirmed operation is recorded before the next goes out, so a takeover resumes after it.
    if (results.length > (request.confirmed?.length ?? 0))
      return next(request, { phase: 'confirming', actorId, mode, results, ...(service ? { service } : {}) }, [
        { type: 'record-confirmed', results },
      ]);
    return sendNext(request, actorId, mode, results, service);
  }
  const last = results.at(-1);
  const outcome: FlowOutcome = {
    status: 'applied',
    audit: 'applied',
    ...(note ? { note } : {}),
    ...(last?.apiRequestId ? { apiRequestId: last.apiRequestId } : {}),
    results,
    ...(service ? { service } : {}),
  };
  return record(request, actorId, mode, outcome);
}

function sendNext(
  request: ChangeRequest,
  actorId: string,
  mode: ApplyMode,
  results: OperationResult[],
  service: ServiceRecord | undefined,
): StepResult {
  const index = results.length;
  const operation = operationsOf(request.plan)[index];
  if (!operation) return afterOperation(request, actorId, mode, results, service);
  const sending: Work = { phase: 'sending', actorId, mode, index, results, ...(service ? { service } : {}) };
  return next(request, sending, [{ type: 'send', index, operation }]);
}

/** A re-read after an operation whose outcome was unknown. */
function reconcileRead(
  request: ChangeRequest,
  work: Extract<Work, { phase: 'reconciling' }>,
  service: ServiceRecord | undefined,
  context: FlowContext,
): StepResult {
  const operation = operationsOf(request.plan)[work.index];
  if (service && operation && operationVisible(operation, request.plan, service)) {
    const result: OperationResult = {
      index: work.index,
      endpoint: operation.endpoint,
      status: 'applied',
      ...(work.error.requestId ? { apiRequestId: work.error.requestId } : {}),
    };
    return afterOperation(request, work.actorId, work.mode, [...work.results, result], service, 'confirmed-by-reread');
  }
  const delay = context.recheckDelaysMs[work.attempt];
  if (delay !== undefined) return next(request, { ...work, attempt: work.attempt + 1 }, [{ type: 'wait', ms: delay }]);
  const results: OperationResult[] = [
    ...work.results,
    {
      index: work.index,
      endpoint: operation?.endpoint ?? 'update',
      status: 'unknown',
      ...(work.error.requestId ? { apiRequestId: work.error.requestId } : {}),
    },
  ];
  return record(request, work.actorId, work.mode, failure('not-shown', { error: work.error }, results));
}

/**
 * After taking over a request whose replica stopped: the operations it recorded as confirmed
 * happened; the service decides about the rest. Every other operation shown: applied. The first
 * not shown after the re-checks: if operations before it are confirmed or shown, the replica
 * stopped between operations, so the rest are sent (the send window and the API timeout have
 * passed, so the missing one can no longer land); if none is, nothing was changed.
 */
function lookAfterTakeover(
  request: ChangeRequest,
  work: Extract<Work, { phase: 'reading' }>,
  service: ServiceRecord | undefined,
  context: FlowContext,
): StepResult {
  const operations = operationsOf(request.plan);
  const confirmed = confirmedSoFar(request);
  const missing = (operation: (typeof operations)[number], index: number) =>
    index >= confirmed.length && !(service && operationVisible(operation, request.plan, service));
  const firstMissing = operations.findIndex(missing);
  const shownUpTo = (end: number): OperationResult[] => [
    ...confirmed,
    ...operations.slice(confirmed.length, end).map((operation, offset) => ({
      index: confirmed.length + offset,
      endpoint: operation.endpoint,
      status: 'applied' as const,
    })),
  ];
  if (service && firstMissing === -1)
    return record(request, work.actorId, 'settle', {
      status: 'applied',
      audit: 'applied',
      note: 'settled-shows',
      ...(confirmed.length > 0 ? { results: shownUpTo(operations.length) } : {}),
      service,
    });
  const delay = context.recheckDelaysMs[work.attempt];
  if (delay !== undefined) return next(request, { ...work, attempt: work.attempt + 1 }, [{ type: 'wait', ms: delay }]);
  if (service && firstMissing > 0)
    return afterOperation(request, work.actorId, 'settle', shownUpTo(firstMissing), service, 'resumed');
  return record(
    request,
    work.actorId,
    'settle',
    failure('settled-not-shown', undefined, confirmed.length > 0 ? confirmed : undefined),
  );
}

/** The operations recorded as confirmed, in order from the first (anything else is not trusted). */
function confirmedSoFar(request: ChangeRequest): OperationResult[] {
  const confirmed: OperationResult[] = [];
  for (const result of request.confirmed ?? []) {
    if (result.status !== 'applied' || result.index !== confirmed.length) break;
    confirmed.push(result);
  }
  return confirmed;
}

function record(
  request: ChangeRequest,
  actorId: string,
  mode: ApplyMode,
  outcome: FlowOutcome,
  before: Effect[] = [],
): StepResult {
  // Which operation came to what is worth recording only when there are several.
  if (operationsOf(request.plan).length <= 1 && outcome.results) {
    const { results: _results, ...single } = outcome;
    outcome = single;
  }
  return next(request, { phase: 'recording', actorId, mode, outcome }, [
    ...before,
    {
      type: 'transition',
      from: ['applying'],
      to: outcome.status,
      actorId,
      audit: outcome.audit,
      outcome,
      holding: true,
    },
  ]);
}

function recorded(
  request: ChangeRequest,
  work: Extract<Work, { phase: 'recording' }>,
  result: StoreTransitionResult,
): StepResult {
  const { outcome } = work;
  if (result.ok) {
    const effects: Effect[] = [{ type: 'release-lease' }, { type: 'show', request: result.request }];
    // Whoever records a break-glass change applied (its own bot, or one that took it over) files its review.
    if (outcome.status === 'applied' && result.request.breakGlass)
      effects.push({ type: 'file-review', original: result.request });
    if (outcome.status === 'applied' && outcome.service)
      effects.push({ type: 'post-result', request: result.request, service: outcome.service });
    effects.push(...tell(result.request, { kind: outcome.status }), { type: 'follow-up', request: result.request });
    return finish(result.request, effects);
  }
  // Settling: another replica settled it, or the store refused; nothing more to do here.
  if (work.mode === 'settle') return finish(request, [{ type: 'release-lease' }]);
  if (result.reason === 'lost' || result.reason === 'conflict') {
    // Another replica took the request over and decides (or decided) from the service itself.
    const apiRequestId = outcome.status === 'applied' ? outcome.apiRequestId : undefined;
    const effects: Effect[] = [
      {
        type: 'log',
        level: 'warn',
        fact: { kind: 'taken-over-before-recorded', status: outcome.status, ...(apiRequestId ? { apiRequestId } : {}) },
      },
    ];
    if (outcome.status === 'applied' && result.reason === 'conflict')
      effects.push({ type: 'post-correction', ...(apiRequestId ? { apiRequestId } : {}) });
    effects.push({ type: 'release-lease' }, reply({ kind: 'lost-after-sending' }));
    return finish(result.ok === false && 'request' in result ? result.request : request, effects);
  }
  return finish(request, [
    { type: 'log', level: 'error', fact: { kind: 'outcome-not-recorded', status: outcome.status } },
    { type: 'release-lease' },
    reply({ kind: 'outcome-not-recorded' }),
  ]);
}

/** The lease was lost (before anything, or more, was sent): this replica stops, the new owner settles it. */
function stopHolding(request: ChangeRequest, mode: ApplyMode, sentSome = false): StepResult {
  const effects: Effect[] = [{ type: 'release-lease' }];
  if (mode === 'apply') effects.push(reply({ kind: sentSome ? 'lost-after-sending' : 'lost-before-sending' }));
  return finish(request, effects);
}

// ---------------------------------------------------------------------------------------------
// Filing and deciding

/**
 * The last approval of a request whose maintenance window closed since it was asked: it waits in
 * "scheduled" for the next opening (the store records that time as its applyAt), as a request asked
 * outside its window does. Reverts, break-glass, reviews and extensions never wait for a window.
 */
function deferredToWindow(request: ChangeRequest, now: number): { scheduleAt?: number } {
  // An extension sends nothing: it only moves its grant's revert, which would run before any
  // deferred time (it was asked inside the window; outside, filing refuses it).
  if (request.revertOf || request.breakGlass || request.reviewOf || request.extendOf) return {};
  const timing = timingOf(request.requirements ?? [], now);
  return timing.kind === 'deferred' ? { scheduleAt: timing.at } : {};
}

/** A scheduled request approved before its time waits for it; one approved at or after it applies at once. */
function waitsForItsTime(request: ChangeRequest, context: FlowContext): request is ChangeRequest & { applyAt: number } {
  return request.applyAt !== undefined && request.applyAt > context.now;
}

function withdraw(request: ChangeRequest, kind: 'withdrawn-unposted' | 'withdrawn-unrecorded'): Effect {
  return {
    type: 'transition',
    from: ['pending'],
    to: 'cancelled',
    actorId: request.requesterId,
    audit: 'cancelled',
    note: { kind },
    bestEffort: true,
  };
}

const channelOf = (from: { channelId?: string }) => (from.channelId ? { channelId: from.channelId } : {});

function withdrawn(
  request: ChangeRequest,
  work: Extract<Work, { phase: 'withdrawing' }>,
  result: StoreTransitionResult,
): StepResult {
  if (work.why === 'unposted')
    return finish(request, [
      reply({ kind: 'not-posted', notInChannel: work.notInChannel ?? false, ...channelOf(work) }),
    ]);
  // Posted but not recorded: the message has live buttons the bot could not follow up, so show it withdrawn.
  const effects: Effect[] = [];
  if (result.ok && request.messageTs)
    effects.push({ type: 'show', request: { ...result.request, messageTs: request.messageTs } });
  effects.push(reply({ kind: 'not-recorded' }));
  return finish(result.ok ? result.request : request, effects);
}

/** A store step refused because someone else moved the request first. */
function lostRace(result: RefusedStep): StepResult {
  if (result.reason === 'missing') return finish(undefined, [reply({ kind: 'gone' })]);
  if (result.reason === 'lost') return finish(result.request, [reply({ kind: 'lost-after-sending' })]);
  if (result.reason === 'expired')
    return finish(result.request, [
      { type: 'show', request: result.request },
      ...tell(result.request, { kind: 'expired' }),
      reply({ kind: 'expired' }),
    ]);
  return finish(result.request, [reply({ kind: 'already-decided', request: result.request })]);
}

type RefusedStep =
  { ok: false; reason: 'missing' } | { ok: false; reason: 'conflict' | 'expired' | 'lost'; request: ChangeRequest };

// ---------------------------------------------------------------------------------------------
// Small helpers

function failure<K extends Extract<FlowOutcome, { status: 'failed' }>['failure']['kind']>(
  kind: K,
  details?: Omit<Extract<Extract<FlowOutcome, { status: 'failed' }>['failure'], { kind: K }>, 'kind'>,
  results?: OperationResult[],
  audit: 'failed' | 'stale' = 'failed',
): FlowOutcome {
  const failed = { kind, ...details } as Extract<Extract<FlowOutcome, { status: 'failed' }>['failure'], { kind: K }>;
  return { status: 'failed', audit, failure: failed, ...(results ? { results } : {}) };
}

/**
 * The requester is told of every ending of their request, and of its approval, but never of
 * what they did themselves. A revert is nobody's request: the original's requester is told once
 * it took their change back, and of nothing else (a failed revert is tried again by the bot).
 */
function tell(request: ChangeRequest, news: RequesterNews): Effect[] {
  // A review is news for approvers, not for whoever broke the glass (their change is long applied).
  if (request.reviewOf) return [];
  if (request.revertOf)
    return news.kind === 'applied' ? [{ type: 'tell-requester', request, news: { kind: 'reverted' } }] : [];
  if (
    (news.kind === 'approved' || news.kind === 'rejected' || news.kind === 'cancelled') &&
    news.by === request.requesterId
  )
    return [];
  return [{ type: 'tell-requester', request, news }];
}
