/**
 * Turns what a person asked for into the exact operations the API will receive, checked against
 * the service as it is: each kind of change (kinds/) plans its part; invalid input is refused with
 * a sentence, parts that would change nothing are dropped, and a request that changes nothing at
 * all is refused.
 */
import { capacityWarnings } from '../capacity/warnings.js';
import { CAPACITY_FIELDS, capacityValuesOf, fieldsOf, type CapacityValues } from '../capacity/values.js';
import { rangeText } from '../service/capacity.js';
import type { ServiceRecord } from '../service/schema.js';
import { LARGE_GROWTH, memoryRange, replicaRange, totalMemoryRange } from './kinds/capacity.js';
import { KIND_LIST, type Draft, type PlanProblem } from './kinds/index.js';
import { powerActionOf } from './kinds/power.js';
import { currentState } from './state.js';
import { planTargetOf } from './target-records.js';
import type { ChangeIntent, ChangePlan, FieldChange, Operation, TouchedState } from './types.js';

export type { PlanProblem } from './kinds/index.js';
export { tagText } from './kinds/tags.js';

export type PlanResult = { ok: true; plan: ChangePlan } | { ok: false; problems: PlanProblem[] };

const NOTHING_CHANGES = 'This request changes nothing: the service already looks like that.';

export function planChange(service: ServiceRecord, intent: ChangeIntent): PlanResult {
  const draft: Draft = {
    update: {},
    scaling: { body: {}, expect: {} },
    writes: [],
    changes: [],
    warnings: [],
    problems: [],
    unchanged: [],
    touched: new Set(),
  };
  for (const kind of KIND_LIST) kind.plan(draft, service, intent);

  if (draft.problems.length > 0) return { ok: false, problems: draft.problems };
  if (draft.changes.length === 0) {
    // Said under the field that asked for it (the modal), or the generic sentence.
    if (draft.unchanged.length > 0) return { ok: false, problems: draft.unchanged };
    return { ok: false, problems: [{ field: 'request', message: NOTHING_CHANGES }] };
  }
  const now = currentState(service);
  const before: TouchedState = {};
  for (const field of draft.touched) Object.assign(before, { [field]: now[field] });
  const target = planTargetOf(service);
  const plan: ChangePlan = {
    serviceId: service.id,
    serviceName: service.name,
    ...(target ? { target } : {}),
    update: draft.update,
    changes: draft.changes,
    warnings: draft.warnings,
    before,
  };
  return { ok: true, plan: withCapacity(withParts(plan, draft), draft, service) };
}

/** A plan that writes what is not the service record (a part, a member, a key) sends those first, then the rest. */
function withParts(plan: ChangePlan, draft: Draft): ChangePlan {
  if (draft.writes.length === 0) return plan;
  const update: Operation[] = Object.keys(draft.update).length > 0 ? [{ endpoint: 'update', body: draft.update }] : [];
  return { ...plan, operations: [...draft.writes, ...update] };
}

/**
 * A plan that also scales or powers the service gets its operations in order (basic details,
 * then replicaScaling, then state), both sides of its capacity, a total-memory line and the
 * warnings that need both sides. A plan without them stays exactly as before operations existed.
 */
function withCapacity(plan: ChangePlan, draft: Draft, service: ServiceRecord): ChangePlan {
  const scales = fieldsOf(draft.scaling.expect).length > 0;
  if (!scales && draft.power === undefined) return plan;
  const operations: Operation[] = [...draft.writes];
  if (Object.keys(draft.update).length > 0) operations.push({ endpoint: 'update', body: draft.update });
  if (scales) operations.push({ endpoint: 'replicaScaling', body: draft.scaling.body, expect: draft.scaling.expect });
  if (draft.power)
    operations.push({ endpoint: 'state', body: { command: draft.power.command }, expect: draft.power.expect });
  const capacityBefore = capacityValuesOf(service, CAPACITY_FIELDS);
  const capacity = {
    before: capacityBefore,
    after: { ...capacityBefore, ...draft.scaling.expect, ...draft.power?.expect },
  };
  const withOperations: ChangePlan = { ...plan, operations, capacity };
  const warnings = capacityWarnings(
    service,
    {
      ...capacity,
      replicas: { before: replicaRange(capacity.before), after: replicaRange(capacity.after) },
      memory: { before: memoryRange(capacity.before), after: memoryRange(capacity.after) },
      total: { before: totalMemoryRange(capacity.before), after: totalMemoryRange(capacity.after) },
      ...(draft.power ? { power: powerActionOf(withOperations) } : {}),
    },
    LARGE_GROWTH,
  );
  const total = totalLine(draft, capacity);
  return {
    ...withOperations,
    changes: total ? [...plan.changes, total] : plan.changes,
    warnings: [...plan.warnings, ...warnings],
  };
}

/** "Total memory: 48 GB → 96 GB" when replicas or memory per replica change it. */
function totalLine(draft: Draft, capacity: { before: CapacityValues; after: CapacityValues }): FieldChange | undefined {
  const before = totalMemoryRange(capacity.before);
  const after = totalMemoryRange(capacity.after);
  if (before === undefined || after === undefined) return undefined;
  if (before.min === after.min && before.max === after.max) return undefined;
  const field = draft.touched.has('replicaMemory') ? 'replicaMemory' : 'replicas';
  return { field, label: 'Total memory', before: `${rangeText(before)} GB`, after: `${rangeText(after)} GB` };
}
