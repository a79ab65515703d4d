/**
 * Applying a request, as the request machine (step.ts) decides it: under the lease and the
 * service's lock, a fresh read, the rules judged again on it, each operation sent at most once
 * per hold and confirmed before the next, an unknown outcome looked at (never replayed), a
 * takeover settled from the service, and the outcome recorded only while the lease holds.
 */
import { TARGET_NOUN } from '../access/target.js';
import { staleLabels } from '../change/state.js';
import { operationOnto, operationsOf, readingShows } from '../change/operations.js';
import type { ChangeRequest, Operation, OperationResult } from '../change/types.js';
import { rulesGrown } from '../policy/evaluate.js';
import { unjustified } from '../policy/justification.js';
import type { PolicyDecision } from '../policy/types.js';
import { judgedRequirements } from './timing.js';
import { timingOf } from '../policy/window.js';
import type { ServiceRecord } from '../service/schema.js';
import { failure, finish, next, reply, tell } from './results.js';
import type { ApplyMode, Effect, FlowContext, FlowOutcome, StepResult, StoreTransitionResult, Work } from './types.js';

/**
 * Applying starts under the lease the claim took: with the service's lock (the claim took it too
 * when it was free, in the same store step), straight to the fresh read; else by asking for it.
 */
export function beginApply(
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
export function checkBeforeSending(
  request: ChangeRequest,
  actorId: string,
  service: ServiceRecord | undefined,
  now: number,
): StepResult {
  const { plan } = request;
  // A break-glass review sends nothing: marking it reviewed is the whole of it.
  if (request.reviewOf) return record(request, actorId, 'apply', { status: 'applied', audit: 'reviewed' });
  const what = plan.target ? { what: TARGET_NOUN[plan.target.type] } : {};
  if (!service) return record(request, actorId, 'apply', failure('service-gone', what));
  const labels = staleLabels(plan, service);
  if (labels.length > 0)
    return record(request, actorId, 'apply', failure('stale', { labels, ...what }, undefined, 'stale'));
  if (request.revertOf) return checkTheRules(request, actorId, undefined, now, service);
  return next(request, { phase: 'judging', actorId, service }, [{ type: 'judge-rules', service }]);
}

/** The rules in force as judged on the fresh record: refuse what they no longer allow, else send the first operation. */
export function checkTheRules(
  request: ChangeRequest,
  actorId: string,
  rules: PolicyDecision | undefined,
  now: number,
  service?: ServiceRecord,
): StepResult {
  const skipped = skippedAtApply(request, rules, now);
  if (skipped) return record(request, actorId, 'apply', skipped);
  if (request.breakGlass) return afterOperation(request, actorId, 'apply', [], service);
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
  return afterOperation(request, actorId, 'apply', [], service);
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
  const timing = now === undefined ? undefined : timingOf(judgedRequirements(request.plan, request.requirements), now);
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
export function afterOperation(
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

/** Operations whose answer is the thing written alone, not a service record: the last record read is posted with it. */
const answersAlone = (operation: Operation): boolean =>
  operation.endpoint === 'part' ||
  operation.endpoint === 'member' ||
  operation.endpoint === 'apiKey' ||
  operation.endpoint === 'delete';

export function sendNext(
  request: ChangeRequest,
  actorId: string,
  mode: ApplyMode,
  results: OperationResult[],
  service: ServiceRecord | undefined,
): StepResult {
  const index = results.length;
  const planned = operationsOf(request.plan)[index];
  if (!planned) return afterOperation(request, actorId, mode, results, service);
  const operation = operationOnto(planned, service);
  const sending: Work = { phase: 'sending', actorId, mode, index, results, ...(service ? { service } : {}) };
  // A part's answer is the part alone: the record to post is this one with it (flow-lease.ts).
  const record = service && answersAlone(operation) ? { service } : {};
  return next(request, sending, [{ type: 'send', index, operation, ...record }]);
}

/** A re-read after an operation whose outcome was unknown. */
export function reconcileRead(
  request: ChangeRequest,
  work: Extract<Work, { phase: 'reconciling' }>,
  service: ServiceRecord | undefined,
  context: FlowContext,
): StepResult {
  const operation = operationsOf(request.plan)[work.index];
  if (operation && readingShows(operation, request.plan, service)) {
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
export function lookAfterTakeover(
  request: ChangeRequest,
  work: Extract<Work, { phase: 'reading' }>,
  service: ServiceRecord | undefined,
  context: FlowContext,
): StepResult {
  const operations = operationsOf(request.plan);
  const confirmed = confirmedSoFar(request);
  const missing = (operation: (typeof operations)[number], index: number) =>
    index >= confirmed.length && !readingShows(operation, request.plan, service);
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

export function record(
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

export function recorded(
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
export function stopHolding(request: ChangeRequest, mode: ApplyMode, sentSome = false): StepResult {
  const effects: Effect[] = [{ type: 'release-lease' }];
  if (mode === 'apply') effects.push(reply({ kind: sentSome ? 'lost-after-sending' : 'lost-before-sending' }));
  return finish(request, effects);
}
