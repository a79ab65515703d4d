/**
 * Turns what a person asked for into the exact update the API will receive, checked against the
 * service as it is: each kind of change (kinds/) plans its part; invalid input is refused with a
 * sentence, parts that would change nothing are dropped, and a request that changes nothing at
 * all is refused.
 */
import type { ServiceRecord } from '../service/schema.js';
import { KIND_LIST, type Draft, type PlanProblem } from './kinds/index.js';
import { currentState } from './state.js';
import type { ChangeIntent, ChangePlan, TouchedState } from './types.js';

export type { PlanProblem } from './kinds/index.js';
export { tagText } from './kinds/tags.js';

export type PlanResult = { ok: true; plan: ChangePlan } | { ok: false; problems: PlanProblem[] };

export function planChange(service: ServiceRecord, intent: ChangeIntent): PlanResult {
  const draft: Draft = { update: {}, changes: [], warnings: [], problems: [], touched: new Set() };
  for (const kind of KIND_LIST) kind.plan(draft, service, intent);

  if (draft.problems.length > 0) return { ok: false, problems: draft.problems };
  if (draft.changes.length === 0) {
    return {
      ok: false,
      problems: [{ field: 'request', message: 'This request changes nothing: the service already looks like that.' }],
    };
  }
  const now = currentState(service);
  const before: TouchedState = {};
  for (const field of draft.touched) Object.assign(before, { [field]: now[field] });
  return {
    ok: true,
    plan: {
      serviceId: service.id,
      serviceName: service.name,
      update: draft.update,
      changes: draft.changes,
      warnings: draft.warnings,
      before,
    },
  };
}
