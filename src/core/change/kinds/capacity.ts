/**
 * What the capacity kinds (replicas, memory per replica, idle scaling, power) share: they plan
 * through core/capacity (the API's bounds, sentences for every refusal), add their part to the
 * replicaScaling or state operation, and are taken back (Undo, a temporary change's revert) by
 * restoring exactly the values they replaced, only while the service still shows what they set.
 */
import { planCapacityChange, type CapacityChange, type CapacityTarget } from '../../capacity/plan.js';
import {
  capacityDifferences,
  capacityValuesOf,
  differencesText,
  fieldsOf,
  type CapacityField,
  type CapacityValues,
} from '../../capacity/values.js';
import type { Risk } from '../../policy/types.js';
import type { Range } from '../../service/capacity.js';
import type { ServiceRecord } from '../../service/schema.js';
import type { ChangeIntent, ChangePlan, TouchedField } from '../types.js';
import type { Draft, PlannedReverse } from './kind.js';
import type { Checked } from '../../command/arguments.js';
import { ACTION, input, textValue, type ViewState } from '../../render/form-inputs.js';
import type { Block } from '../../render/mrkdwn.js';
import type { FormReading, KindForm } from './form-parts.js';

export type CapacityKindField = Extract<TouchedField, 'replicas' | 'replicaMemory' | 'idleScaling'>;

/**
 * Plans one capacity target and adds it to the draft: its body and expected values to the
 * operation it belongs to, or its problems. A target the service already shows is noted, not
 * refused: a prefilled modal field left alone is no problem (planChange says it if nothing else
 * changes).
 */
export function addCapacityTarget(
  draft: Draft,
  service: ServiceRecord,
  target: CapacityTarget,
  field: TouchedField,
  input: keyof ChangeIntent,
): CapacityChange | undefined {
  const planned = planCapacityChange(service, target);
  if (!planned.ok) {
    if (planned.unchanged) draft.unchanged.push(...planned.problems.map((message) => ({ field: input, message })));
    else draft.problems.push(...planned.problems.map((message) => ({ field: input, message })));
    return undefined;
  }
  const { change } = planned;
  if (change.operation.kind === 'replicaScaling') {
    Object.assign(draft.scaling.body, change.operation.body);
    Object.assign(draft.scaling.expect, change.after);
  } else {
    draft.power = { command: change.operation.command, expect: change.after };
  }
  draft.touched.add(field);
  return change;
}

/** The values of `fields` the service shows, for `read` (what the stale check compares). */
export function readValues(service: ServiceRecord, fields: readonly CapacityField[]): CapacityValues | null {
  const values = capacityValuesOf(service, fields);
  return fieldsOf(values).length > 0 ? values : null;
}

/** Two readings of the same fields: every field either side shows is the same on the other. */
export function sameValues(a: CapacityValues | undefined, b: CapacityValues | undefined): boolean {
  const left = a ?? {};
  const right = b ?? {};
  const fields = new Set([...fieldsOf(left), ...fieldsOf(right)]);
  return [...fields].every((field) => left[field] === right[field]);
}

/** What the replicaScaling operation of a plan sets, limited to `fields`; empty when it sets none of them. */
export function scalingExpectOf(plan: ChangePlan, fields: readonly CapacityField[]): CapacityValues {
  const expect: CapacityValues = {};
  for (const operation of plan.operations ?? []) {
    if (operation.endpoint !== 'replicaScaling') continue;
    for (const field of fields) {
      if (operation.expect[field] !== undefined) Object.assign(expect, { [field]: operation.expect[field] });
    }
  }
  return expect;
}

/**
 * Adds the inverse of a capacity part to `reverse` when the service still shows what the change
 * set; otherwise says what was changed by hand and leaves it.
 */
export function reverseCapacity(
  service: ServiceRecord,
  set: CapacityValues,
  restore: (reverse: PlannedReverse) => void,
  reverse: PlannedReverse,
): void {
  if (fieldsOf(set).length === 0) return;
  const differences = capacityDifferences(service, set);
  if (differences.length === 0) restore(reverse);
  else
    reverse.leftAlone.push(
      `${service.name || service.id} was changed by hand since (${differencesText(differences)}), so that part is left as it is.`,
    );
}

/** A range from a reading's min/max fields (or one count), undefined when it shows neither. */
export function rangeFrom(min: number | undefined, max: number | undefined): Range | undefined {
  if (min === undefined || max === undefined) return undefined;
  return { min, max };
}

/** Replicas as a range, from a reading or a body: `numReplicas` is min = max. */
export function replicaRange(values: CapacityValues | undefined): Range | undefined {
  if (values?.numReplicas !== undefined) return { min: values.numReplicas, max: values.numReplicas };
  return rangeFrom(values?.minReplicas, values?.maxReplicas);
}

/** Memory per replica as a range. */
export function memoryRange(values: CapacityValues | undefined): Range | undefined {
  return rangeFrom(values?.minReplicaMemoryGb, values?.maxReplicaMemoryGb);
}

/** Per-replica memory × replicas, when both are known. */
export function totalMemoryRange(values: CapacityValues | undefined): Range | undefined {
  const replicas = replicaRange(values);
  const memory = memoryRange(values);
  if (replicas === undefined || memory === undefined) return undefined;
  return { min: replicas.min * memory.min, max: replicas.max * memory.max };
}

/** Either bound of a range goes down (both known). */
export function lowered(before: Range | undefined, after: Range | undefined): boolean {
  return before !== undefined && after !== undefined && (after.max < before.max || after.min < before.min);
}

/** Total memory grows this many times or more: a cost people should see before they approve. */
export const LARGE_GROWTH = 4;

/**
 * `capacity-up-large` when the plan's total memory (at its maximum) grows by LARGE_GROWTH or more;
 * `reverted`: when its revert (after back to before) does.
 */
export function growthRisks(plan: ChangePlan, reverted = false): Risk[] {
  const [from, to] = reverted
    ? [plan.capacity?.after, plan.capacity?.before]
    : [plan.capacity?.before, plan.capacity?.after];
  const before = totalMemoryRange(from);
  const after = totalMemoryRange(to);
  if (before === undefined || after === undefined || before.max <= 0) return [];
  return after.max >= LARGE_GROWTH * before.max ? ['capacity-up-large'] : [];
}

// ---------------------------------------------------------------------------------------------
// The edit modal's Capacity section

export const CAPACITY_SECTION = 'Capacity';

/** "3" or "2-6" replicas, "16" or "8-32" GB per replica: how the section shows a range. */
export const rangeInput = (range: Range | undefined) =>
  range === undefined ? undefined : range.min === range.max ? String(range.min) : `${range.min}-${range.max}`;

/**
 * A capacity text input (replicas, memory), prefilled with what the service shows, absent when it
 * shows nothing; read like the `scale` command reads it, and only when changed from what was shown.
 */
export function rangeForm(spec: {
  /** What tests and problems call the input ("memory"), and its block id ("replica_memory"). */
  name: string;
  blockId: string;
  label: string;
  hint: string;
  shown(service: ServiceRecord): string | undefined;
  check(text: string): Checked<Range>;
  intent(range: Range): ChangeIntent;
}): KindForm {
  const text = (shown: unknown) => (typeof shown === 'string' ? shown : undefined);
  return {
    blockIds: { [spec.name]: spec.blockId },
    section: CAPACITY_SECTION,
    shown: (service) => spec.shown(service),
    blocks(_service, shown): Block[] {
      const initial = text(shown);
      if (initial === undefined) return [];
      const element = { type: 'plain_text_input' as const, action_id: ACTION, initial_value: initial, max_length: 20 };
      return [input(spec.blockId, spec.label, element, { optional: true, hint: spec.hint })];
    },
    read(values: ViewState, shown): FormReading {
      const given = textValue(values, spec.blockId);
      if (given === undefined || given === text(shown)) return { intent: {} };
      const checked = spec.check(given);
      return checked.ok
        ? { intent: spec.intent(checked.value) }
        : { intent: {}, problems: { [spec.blockId]: checked.message } };
    },
  };
}
