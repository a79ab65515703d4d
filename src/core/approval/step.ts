/**
 * The approval flow's decision function: step(state, event, context) -> next state + effects.
 * Pure and total: no I/O, no clock but the context's, no randomness; an event that does not
 * apply in a state leaves it unchanged and says why (`ignored`). It hands each event to one of
 * two machines: a request's life (REQUEST_MACHINE, here, with applying's details in applying.ts)
 * or a grant's (GRANT_MACHINE, grant.ts); docs/approval-states.md is their table.
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
import { confirmsByName } from '../change/kinds/index.js';
import { operationsOf } from '../change/operations.js';
import { FINAL_STATUSES, type ChangeRequest, type OperationResult } from '../change/types.js';
import { timingOf } from '../policy/window.js';
import { GRANT_MACHINE, isGrantEvent, isGrantEventType, type GrantEventType } from './grant.js';
import { dispatch, movesOf, on, type Machine, type Phase } from './machine.js';
import {
  afterOperation,
  beginApply,
  checkBeforeSending,
  checkTheRules,
  lookAfterTakeover,
  reconcileRead,
  record,
  recorded,
  sendNext,
  stopHolding,
} from './applying.js';
import { failure, finish, ignored, inPhase, next, reply, tell } from './results.js';
import type { Effect, FlowContext, FlowEvent, FlowState, StepResult, StoreTransitionResult, Work } from './types.js';

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
    const name = request.plan.serviceName;
    if (decision === 'approve' && confirmsByName(request.plan) && event.confirmedName?.trim() !== name)
      return finish(request, [reply({ kind: 'name-not-typed', name })]);
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
    inPhase(state, 'judging', (request, work) =>
      checkTheRules(request, work.actorId, event.rules, context.now, work.service),
    ),
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
