/**
 * How the decision function's handlers answer: the next state and its effects, the end of a
 * run, or an event that does not apply. Shared by step.ts and grant.ts.
 */
import { FINAL_STATUSES, type ChangeRequest } from '../change/types.js';
import type { Effect, FlowReply, FlowState, StepResult, Work } from './types.js';

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
