/**
 * A state machine as a table: for each event, the phases it applies in and the phases each may
 * lead to, beside the handler that decides which. The dispatcher ignores an event in any other
 * phase (saying why), so the table is also the list of what is legal where; the tests check every
 * transition the handlers make against it, and docs/approval-states.md is generated from it
 * (`npm run states`). Two machines use it: a request's life (step.ts) and a grant's (grant.ts).
 */
import { ignored } from './results.js';
import type { FlowContext, FlowEvent, FlowState, StepResult, Work } from './types.js';

export type Phase = Work['phase'];

/** From each phase the event applies in, the phases it may lead to. */
export type Moves = Partial<Record<Phase, readonly Phase[]>>;

export type Handler<E extends FlowEvent> = (state: FlowState, event: E, context: FlowContext) => StepResult;

export interface Transition<E extends FlowEvent> {
  moves: Moves;
  handle: Handler<E>;
}

export type Machine<T extends FlowEvent['type']> = { [K in T]: Transition<Extract<FlowEvent, { type: K }>> };

/** One row of a machine's table: the event, where it may come, and where each may lead. */
export const on = <E extends FlowEvent>(moves: Moves, handle: Handler<E>): Transition<E> => ({ moves, handle });

/** Hands the event to its handler if it applies in the state's phase; else it is ignored, saying why. */
export function dispatch<T extends FlowEvent['type']>(
  machine: Machine<T>,
  state: FlowState,
  event: Extract<FlowEvent, { type: T }>,
  context: FlowContext,
): StepResult {
  const transition = machine[event.type] as unknown as Transition<FlowEvent>;
  const phase = state.work.phase;
  if (transition.moves[phase] === undefined) {
    const from = Object.keys(transition.moves) as Phase[];
    return ignored(
      state,
      from.length === 1 && from[0] === 'idle'
        ? `${event.type} starts a run of its own (not in phase ${phase})`
        : `expected phase ${from.join(' or ')}, not ${phase}`,
    );
  }
  return transition.handle(state, event, context);
}

/** Where an event may lead from a phase, as the machine declares it (empty: the event does not apply there). */
export function movesOf<T extends FlowEvent['type']>(machine: Machine<T>, phase: Phase, type: T): readonly Phase[] {
  return (machine[type] as unknown as Transition<FlowEvent>).moves[phase] ?? [];
}
