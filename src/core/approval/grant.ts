/**
 * Temporary changes and Undo as events of the decision function: what happens to an applied
 * request (a grant) when its revert is due, when someone clicks Revert now, Extend or Undo, and
 * when a revert attempt or an extension settles. The state's request is the grant; it never moves
 * (it is applied), so these events are exempt from step.ts's "final status" rule. What the bot
 * files for the grant (the revert, the extension, the undo) is a request of its own that goes
 * through the same function.
 */
import {
  attemptOf,
  endedUnapplied,
  extensionPlan,
  isRetryable,
  REVERT_ATTEMPTS_MAX,
  REVERT_LOOK_AGAIN_MS,
  revertCandidate,
  revertIdOf,
  revertRetryMs,
  sendsNothing,
} from '../change/grant.js';
import { planChange } from '../change/plan.js';
import { intentIsEmpty, planUndo } from '../change/temporary.js';
import type { ChangeRequest } from '../change/types.js';
import type { Justification } from '../policy/justification.js';
import { on, type Machine } from './machine.js';
import { finish, ignored, next, reply } from './results.js';
import type { Effect, FlowEvent, FlowState, GrantReply, StepResult, Work } from './types.js';

export type GrantEventType =
  | 'revert-due'
  | 'grant-clicked'
  | 'may-act-answered'
  | 'revert-read'
  | 'revert-planning'
  | 'revert-filed'
  | 'revert-ran'
  | 'revert-unsent-settled'
  | 'revert-settled'
  | 'grant-applied'
  | 'click-claimed'
  | 'follow-on-read'
  | 'follow-on-filed';

const say = (grantReply: GrantReply): Effect => reply(grantReply);

/** A grant's life, event by event: where each applies, where it may lead, and the handler deciding which. */
export const GRANT_MACHINE: Machine<GrantEventType> = {
  'revert-due': on({ idle: ['reverting', 'done'] }, (state, event) => {
    if (state.work.phase !== 'idle') return ignored(state, 'a revert starts a run of its own');
    return beginRevert(state.request, event.originalId, event.actorId, false, event.failures);
  }),

  'grant-clicked': on({ idle: ['grant-checking', 'done'] }, (state, event) => {
    if (state.work.phase !== 'idle') return ignored(state, 'a click starts a run of its own');
    const grant = state.request;
    const { action, userId } = event;
    if (action === 'revert-now' && !grant?.temporary) return finish(grant, [say({ kind: 'not-temporary' })]);
    if (action === 'extend' && (!grant?.temporary || event.dueAt === undefined))
      return finish(grant, [say({ kind: 'extension-inactive' })]);
    if (action === 'undo' && grant?.status !== 'applied') return finish(grant, [say({ kind: 'undo-not-applied' })]);
    // Its revert took it back: the bot changed the service, not someone by hand.
    if (action === 'undo' && event.revertedBy)
      return finish(grant, [say({ kind: 'undo-already-reverted', revertId: event.revertedBy })]);
    if (!grant) return finish(grant, []);
    return next(grant, { phase: 'grant-checking', action, userId, ...carried(event) }, [
      { type: 'check-may-act', userId },
    ]);
  }),

  'may-act-answered': on({ 'grant-checking': ['reverting', 'following-on', 'done'] }, (state, event) =>
    inGrantPhase(state, 'grant-checking', (grant, work) => {
      const { verdict } = event;
      if (!verdict.allowed)
        return finish(grant, [say({ kind: 'grant-not-allowed', action: work.action, reason: verdict.reason })]);
      if (work.action === 'revert-now') return beginRevert(grant, grant.id, work.userId, true, 0);
      return next(grant, { phase: 'following-on', action: work.action, userId: work.userId, ...carried(work) }, [
        { type: 'claim-click', action: work.action },
      ]);
    }),
  ),

  // Reverting -------------------------------------------------------------------------------

  'revert-read': on({ reverting: ['reverting', 'done'] }, (state, event) =>
    inGrantPhase(state, 'reverting', (grant, work) => {
      const { attempt, revert } = event.latest;
      if (revert && endedUnapplied(revert) && attempt >= REVERT_ATTEMPTS_MAX)
        return finish(grant, [
          {
            type: 'log',
            level: 'error',
            fact: {
              kind: 'revert-gave-up',
              attempts: REVERT_ATTEMPTS_MAX,
              lastId: revert.id,
              ...(revert.outcome?.message ? { lastMessage: revert.outcome.message } : {}),
            },
          },
          { type: 'postpone-revert', originalId: grant.id, ms: REVERT_LOOK_AGAIN_MS },
          say({ kind: 'revert-gave-up', originalId: grant.id, attempts: REVERT_ATTEMPTS_MAX, lastId: revert.id }),
        ]);
      if (revert && !endedUnapplied(revert)) return judgeRevert(grant, work, revert);
      // None filed yet, or the last one ended unapplied (failed, expired): file the next attempt.
      return next(grant, { ...work, attempt: revert ? attempt + 1 : attempt }, [{ type: 'read-for-revert' }]);
    }),
  ),

  'revert-planning': on({ reverting: ['reverting', 'done'] }, (state, event, context) =>
    inGrantPhase(state, 'reverting', (grant, work) => {
      const revertId = revertIdOf(grant.id, work.attempt ?? 1);
      const planned = revertCandidate(
        grant,
        event.service,
        event.later,
        { revertId, actorId: work.actorId },
        context.now,
      );
      if (planned.ok) return next(grant, work, [{ type: 'file-revert', candidate: planned.candidate }]);
      const notYet = say({ kind: 'revert-not-yet', originalId: grant.id, problems: planned.notYet });
      if (work.asked) return finish(grant, [notYet]);
      // The sweep: the grant stays scheduled and is looked at again, backing off.
      const failures = work.failures + 1;
      const retryInMs = revertRetryMs(failures);
      return finish(grant, [
        { type: 'log', level: 'warn', fact: { kind: 'revert-not-yet', failures, retryInMs, problems: planned.notYet } },
        { type: 'postpone-revert', originalId: grant.id, ms: retryInMs },
        notYet,
      ]);
    }),
  ),

  'revert-filed': on({ reverting: ['reverting', 'done'] }, (state, event) =>
    inGrantPhase(state, 'reverting', (grant, work) => {
      if (!event.revert) return finish(grant, [say({ kind: 'revert-service-gone' })]);
      return judgeRevert(grant, work, event.revert);
    }),
  ),

  'revert-unsent-settled': on({ reverting: ['done'] }, (state, event) =>
    inGrantPhase(state, 'reverting', (grant, work) => {
      const revert = work.revert;
      if (!revert) return ignored(state, 'no revert attempt was being settled');
      const over: Effect[] = event.ok ? doneWith(grant.id, revert.id) : [];
      return finish(grant, [...over, say({ kind: 'nothing-left-to-revert', found: revert.plan.warnings })]);
    }),
  ),

  'revert-ran': on({ reverting: ['done'] }, (state, event) =>
    inGrantPhase(state, 'reverting', (grant, work) => {
      if (event.reply) return finish(grant, [reply(event.reply)]);
      if (!work.asked) return finish(grant, []);
      const latest = event.latest.revert;
      if (latest && isRetryable(latest))
        return finish(grant, [
          say({
            kind: 'revert-failed-retrying',
            originalId: grant.id,
            ...(latest.outcome?.message ? { message: latest.outcome.message } : {}),
          }),
        ]);
      return finish(grant, [say({ kind: 'reverted-now', originalId: grant.id })]);
    }),
  ),

  /**
   * A revert attempt settled. Applied, or nothing was left: the grant is done with. Failed with
   * something left to take back: never forgotten, tried again later with a back-off, and said.
   */
  'revert-settled': on({ idle: ['done'] }, (state, event) => {
    if (state.work.phase !== 'idle') return ignored(state, 'a follow-up starts a run of its own');
    const { revert } = event;
    const originalId = revert.revertOf;
    if (!originalId) return ignored(state, `${revert.id} is not a revert`);
    if (!isRetryable(revert)) return finish(state.request, doneWith(originalId, revert.id));
    const retryInMs = revertRetryMs(attemptOf(revert.id));
    return finish(state.request, [
      {
        type: 'log',
        level: 'warn',
        fact: {
          kind: 'revert-failed',
          originalId,
          revertId: revert.id,
          retryInMs,
          ...(revert.outcome?.message ? { message: revert.outcome.message } : {}),
        },
      },
      { type: 'postpone-revert', originalId, ms: retryInMs },
    ]);
  }),

  /** The grant (or an extension of it) was applied: its thread says when the bot reverts it. */
  'grant-applied': on({ idle: ['done'] }, (state, event) => {
    if (state.work.phase !== 'idle') return ignored(state, 'a follow-up starts a run of its own');
    const grant = state.request;
    const { applied, dueAt } = event;
    if (!grant || dueAt === undefined || !(applied.threadTs ?? applied.messageTs))
      return ignored(state, 'no scheduled revert to announce');
    return finish(grant, [{ type: 'announce-revert', applied, dueAt }]);
  }),

  // Extend and Undo ---------------------------------------------------------------------------

  'click-claimed': on({ 'following-on': ['following-on', 'done'] }, (state, event) =>
    inGrantPhase(state, 'following-on', (grant, work) => {
      const { action } = work;
      if (event.open)
        return finish(grant, [say({ kind: 'follow-on-open', action, originalId: grant.id, openId: event.open })]);
      if (!event.claimed)
        return finish(grant, [
          say({ kind: 'follow-on-being-filed', action, originalId: grant.id, inThread: Boolean(grant.messageTs) }),
        ]);
      return next(grant, work, [{ type: 'read-for-follow-on', userId: work.userId }]);
    }),
  ),

  'follow-on-read': on({ 'following-on': ['following-on', 'done'] }, (state, event) =>
    inGrantPhase(state, 'following-on', (grant, work) => {
      const { service } = event;
      const { action, userId } = work;
      const given = work.given ? { given: work.given } : {};
      const release: Effect = { type: 'release-click', action };
      // The click is let go whatever stops it here: a click once the service can be read is not refused.
      if (event.failed)
        return finish(grant, [release, say({ kind: 'follow-on-read-failed', action, error: event.failed })]);
      if (!service) return finish(grant, [release, say({ kind: 'follow-on-service-gone', action })]);
      if (action === 'extend') {
        const plan = extensionPlan(grant, service, work.dueAt ?? 0);
        return next(grant, work, [{ type: 'file-follow-on', action, plan, userId, service, ...given }]);
      }
      const { intent, leftAlone } = planUndo(grant.plan, service);
      if (intentIsEmpty(intent))
        return finish(grant, [release, say({ kind: 'nothing-left-to-undo', originalId: grant.id, leftAlone })]);
      const planned = planChange(service, intent);
      if (!planned.ok)
        return finish(grant, [
          release,
          say({ kind: 'follow-on-filed', outcome: planned, where: whereOf(grant, action) }),
        ]);
      return next(grant, { ...work, leftAlone }, [
        { type: 'file-follow-on', action, plan: planned.plan, userId, service, ...given },
      ]);
    }),
  ),

  'follow-on-filed': on({ 'following-on': ['done'] }, (state, event) =>
    inGrantPhase(state, 'following-on', (grant, work) => {
      const { outcome } = event;
      const effects: Effect[] = outcome.ok ? [] : [{ type: 'release-click', action: work.action }];
      // A rule asks a reason or ticket the grant did not carry: the click asks for them in a form.
      if (!outcome.ok && 'asks' in outcome && outcome.asks)
        return finish(grant, [
          ...effects,
          say({
            kind: 'follow-on-unjustified',
            action: work.action,
            originalId: grant.id,
            text: outcome.text,
            asks: outcome.asks,
          }),
        ]);
      const leftAlone = work.leftAlone && work.leftAlone.length > 0 ? { leftAlone: work.leftAlone } : {};
      effects.push(say({ kind: 'follow-on-filed', outcome, where: whereOf(grant, work.action), ...leftAlone }));
      return finish(grant, effects);
    }),
  ),
};

/** Events this file handles: they concern an applied request and never move its status. */
const GRANT_EVENTS: ReadonlySet<FlowEvent['type']> = new Set(Object.keys(GRANT_MACHINE) as GrantEventType[]);

export function isGrantEvent(event: FlowEvent): event is Extract<FlowEvent, { type: GrantEventType }> {
  return GRANT_EVENTS.has(event.type);
}

export function isGrantEventType(type: FlowEvent['type']): type is GrantEventType {
  return GRANT_EVENTS.has(type);
}

/**
 * Files (if nobody did yet) and applies the revert of a grant. Idempotent across replicas: the
 * revert attempt is created only if absent, and applied through the exactly-once path.
 */
function beginRevert(
  grant: ChangeRequest | undefined,
  originalId: string,
  actorId: string,
  asked: boolean,
  failures: number,
): StepResult {
  if (!grant)
    // What it granted can no longer be known, so the bot cannot take it back: loud, counted, and
    // looked at again hourly (never dropped silently).
    return finish(undefined, [
      { type: 'log', level: 'error', fact: { kind: 'revert-record-missing', originalId } },
      { type: 'count-missing-record', originalId },
      { type: 'postpone-revert', originalId, ms: REVERT_LOOK_AGAIN_MS },
      say({ kind: 'revert-record-missing', originalId }),
    ]);
  // Not applied (yet, or ever): nothing was granted, so there is nothing to take back.
  if (!grant.temporary || grant.status !== 'applied')
    return finish(grant, [{ type: 'forget-revert', originalId }, say({ kind: 'grant-inactive' })]);
  return next(grant, { phase: 'reverting', actorId, asked, failures }, [{ type: 'read-revert' }]);
}

/** The revert attempt as stored: in progress, already over, nothing to send, or to apply now. */
function judgeRevert(
  grant: ChangeRequest,
  work: Extract<Work, { phase: 'reverting' }>,
  revert: ChangeRequest,
): StepResult {
  if (revert.status === 'applying') return finish(grant, [say({ kind: 'reverting-now', revertId: revert.id })]);
  // Another replica filed this attempt and it failed with something left (two sweeps, or Revert
  // now racing the sweep): that replica scheduled the retry; forgetting here would drop it.
  if (isRetryable(revert))
    return finish(grant, [
      say({
        kind: 'revert-failed-retrying',
        originalId: grant.id,
        ...(revert.outcome?.message ? { message: revert.outcome.message } : {}),
      }),
    ]);
  if (revert.status !== 'pending')
    return finish(grant, [
      { type: 'forget-revert', originalId: grant.id },
      say({ kind: 'already-reverted', revertId: revert.id }),
    ]);
  const reverting: Work = { ...work, revert };
  if (sendsNothing(revert.plan))
    return next(grant, reverting, [{ type: 'settle-unsent-revert', revert, actorId: work.actorId }]);
  return next(grant, reverting, [{ type: 'apply-revert', revert, actorId: work.actorId }]);
}

/** The grant is done with: its schedule goes, and its reminder loses Extend and Revert now. */
function doneWith(originalId: string, revertId: string): Effect[] {
  return [
    { type: 'forget-revert', originalId },
    { type: 'close-reminder', originalId, revertId },
  ];
}

/** What a click hands on from event to work: the revert's time (Extend) and what the form was given. */
function carried(from: { dueAt?: number; given?: Justification }): { dueAt?: number; given?: Justification } {
  return {
    ...(from.dueAt === undefined ? {} : { dueAt: from.dueAt }),
    ...(from.given ? { given: from.given } : {}),
  };
}

function whereOf(grant: ChangeRequest, action: 'extend' | 'undo'): 'the thread' | 'the channel' {
  return action === 'extend' || grant.messageTs ? 'the thread' : 'the channel';
}

/** Like inPhase, for a request that is (and stays) applied. */
function inGrantPhase<P extends Work['phase']>(
  state: FlowState,
  phase: P,
  handle: (grant: ChangeRequest, work: Extract<Work, { phase: P }>) => StepResult,
): StepResult {
  if (!state.request) return ignored(state, 'no request');
  if (state.work.phase !== phase) return ignored(state, `expected phase ${phase}, not ${state.work.phase}`);
  return handle(state.request, state.work as Extract<Work, { phase: P }>);
}
