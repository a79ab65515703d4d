/** The fields of a service record that changes touch, read the same way everywhere (kinds/). */
import { CAPACITY_FIELDS, capacityValuesOf } from '../capacity/values.js';
import { rangeText, type Range } from '../service/capacity.js';
import type { ServiceRecord } from '../service/schema.js';
import { totalMemoryRange } from './kinds/capacity.js';
import { KINDS, KIND_LIST } from './kinds/index.js';
import type { ChangePlan, TouchedField, TouchedState } from './types.js';

export { mysqlEnabled } from './kinds/mysql-endpoint.js';
export { mayLeaveDefaultChannel } from './kinds/release-channel.js';

export function currentState(service: ServiceRecord): Required<TouchedState> {
  const state: TouchedState = {};
  for (const kind of KIND_LIST) Object.assign(state, { [kind.field]: kind.read(service) });
  return state as Required<TouchedState>;
}

/**
 * The touched fields whose value changed since the request was made. A non-empty answer means
 * approving would apply a change to a service that no longer looks like what people reviewed.
 * A set (IP access, private endpoints, tags) counts as changed only where this request touches it.
 */
export function staleFields(plan: ChangePlan, service: ServiceRecord): TouchedField[] {
  const { before } = plan;
  return (Object.keys(before) as TouchedField[]).filter((field) => {
    const kind = KINDS[field] as (typeof KIND_LIST)[number];
    if (kind.entriesSame) return !kind.entriesSame(plan, service);
    return !kind.same(before[field], kind.read(service) ?? undefined);
  });
}

/**
 * What changed since the request was made, as people read it: the labels of its stale lines, and
 * the total memory when replicas × memory per replica moved under a capacity change (its total
 * line and cost estimate rest on it, though another request changed the factor it leaves alone).
 */
export function staleLabels(plan: ChangePlan, service: ServiceRecord): string[] {
  const stale = staleFields(plan, service);
  const labels = plan.changes.filter((change) => stale.includes(change.field)).map((change) => change.label);
  // Said only when the factor that moved is one the request leaves alone (its own lines say the rest).
  const total = labels.length === 0 ? totalMoved(plan, service) : undefined;
  return total ? [total] : [...new Set(labels)];
}

const SIZED_BY_TOTAL: readonly TouchedField[] = ['replicas', 'replicaMemory', 'idleScaling'];

/** A capacity change whose figures (total memory, cost estimate) rest on replicas × memory per replica. */
export const sizedByTotal = (plan: ChangePlan): boolean =>
  plan.capacity !== undefined && SIZED_BY_TOTAL.some((field) => field in plan.before);

function totalMoved(plan: ChangePlan, service: ServiceRecord): string | undefined {
  if (!plan.capacity || !sizedByTotal(plan)) return undefined;
  const asked = totalMemoryRange(plan.capacity.before);
  const now = totalMemoryRange(capacityValuesOf(service, CAPACITY_FIELDS));
  if (asked?.min === now?.min && asked?.max === now?.max) return undefined;
  const text = (range: Range | undefined) => (range ? `${rangeText(range)} GB` : 'not shown');
  return `total memory: ${text(now)} now, ${text(asked)} when asked`;
}
