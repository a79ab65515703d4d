/**
 * How the decision function's handlers answer: the next state and its effects, the end of a
 * run, or an event that does not apply. Shared by step.ts and grant.ts.
 */
import { FINAL_STATUSES, type ChangeRequest, type OperationResult } from '../change/types.js';
import type { Effect, FlowOutcome, FlowReply, FlowState, RequesterNews, StepResult, Work } from './types.js';

export function inPhase<P extends Work['phase']>(
  state: FlowState,
  phase: P,
  handle: (request: ChangeRequest, work: Extract<Work, { phase: P }>) => StepResult,
): StepResult {
  if (!state.request) return ignored(state, 'no request');
  if (FINAL_STATUSES.includes(state.request.status))
    return ignored(state, `the request is already ${state.request.status}`);
  if (state.work.phase !== phase) return ignored(state, `expected phase ${phase}, not ${state.work.phase}`);
  return handle(state.request, state.work as Extract<Work, { phase: P }>);
}

export function next(request: ChangeRequest, work: Work, effects: Effect[]): StepResult {
  return { state: { request, work }, effects };
}

export function finish(request: ChangeRequest | undefined, effects: Effect[]): StepResult {
  return { state: { request, work: { phase: 'done' } }, effects };
}

export function ignored(state: FlowState, reason: string): StepResult {
  return { state, effects: [], ignored: reason };
}

export const reply = (flowReply: FlowReply): Effect => ({ type: 'reply', reply: flowReply });

export function failure<K extends Extract<FlowOutcome, { status: 'failed' }>['failure']['kind']>(
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
export function tell(request: ChangeRequest, news: RequesterNews): Effect[] {
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
