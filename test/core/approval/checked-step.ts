/**
 * The decision function as the tests call it, checking every transition it makes against the
 * machines' tables (core/approval/machine.ts): a handler moving to a phase its table does not
 * declare fails the test, so docs/approval-states.md, generated from the tables, stays true.
 */
import { declaredMoves, step as decide } from '../../../src/core/approval/step.js';
import type { FlowContext, FlowEvent, FlowState, StepResult } from '../../../src/core/approval/types.js';

export function step(state: FlowState, event: FlowEvent, context: FlowContext): StepResult {
  const result = decide(state, event, context);
  if ('ignored' in result) return result;
  const from = state.work.phase;
  const to = result.state.work.phase;
  if (!declaredMoves(from, event.type).includes(to))
    throw new Error(
      `${from} + ${event.type} -> ${to} is not in the machine's table: add it to the event's moves in core/approval/step.ts or grant.ts, then run npm run states`,
    );
  return result;
}
