/**
 * The capacity and power values of a service record, field by field, in the terms of the API's
 * PATCH …/replicaScaling body (plus `state`): what a change sets, what it replaces, and what a
 * stale check or a revert compares with the service as it is now. Pure.
 */
import type { AutoscalingMode, ServiceRecord } from '../service/schema.js';

/** One value a capacity or power change can set. */
export type CapacityField =
  | 'numReplicas'
  | 'minReplicas'
  | 'maxReplicas'
  | 'minReplicaMemoryGb'
  | 'maxReplicaMemoryGb'
  | 'idleScaling'
  | 'idleTimeoutMinutes'
  | 'state';

export const CAPACITY_FIELDS: readonly CapacityField[] = [
  'numReplicas',
  'minReplicas',
  'maxReplicas',
  'minReplicaMemoryGb',
  'maxReplicaMemoryGb',
  'idleScaling',
  'idleTimeoutMinutes',
  'state',
];

/** Values by field; a field the record does not show is absent. */
export interface CapacityValues {
  numReplicas?: number;
  minReplicas?: number;
  maxReplicas?: number;
  minReplicaMemoryGb?: number;
  maxReplicaMemoryGb?: number;
  idleScaling?: boolean;
  idleTimeoutMinutes?: number;
  state?: string;
}

/**
 * How the service scales: its `autoscalingMode`, or, on a record that does not say, what its
 * fields show (`numReplicas` only in vertical mode, `minReplicas`/`maxReplicas` only in
 * horizontal mode); undefined when nothing tells.
 */
export function scalingModeOf(service: ServiceRecord): AutoscalingMode | undefined {
  if (service.autoscalingMode === 'vertical' || service.autoscalingMode === 'horizontal') {
    return service.autoscalingMode;
  }
  if (service.numReplicas !== undefined) return 'vertical';
  if (service.minReplicas !== undefined || service.maxReplicas !== undefined) return 'horizontal';
  return undefined;
}

/** One field of the record; horizontal records give one `replicaMemoryGb` for both memory bounds. */
function valueOf(service: ServiceRecord, field: CapacityField): number | boolean | string | undefined {
  switch (field) {
    case 'minReplicaMemoryGb':
      return service.minReplicaMemoryGb ?? service.replicaMemoryGb;
    case 'maxReplicaMemoryGb':
      return service.maxReplicaMemoryGb ?? service.replicaMemoryGb;
    default:
      return service[field];
  }
}

/** The record's values of the given fields (absent ones left out). */
export function capacityValuesOf(service: ServiceRecord, fields: readonly CapacityField[]): CapacityValues {
  const values: Record<string, unknown> = {};
  for (const field of fields) {
    const value = valueOf(service, field);
    if (value !== undefined) values[field] = value;
  }
  return values;
}

/** The fields a set of values names, in a fixed order. */
export function fieldsOf(values: CapacityValues): CapacityField[] {
  return CAPACITY_FIELDS.filter((field) => values[field] !== undefined);
}

export interface CapacityDifference {
  field: CapacityField;
  expected: number | boolean | string;
  /** Undefined when the record no longer shows the field. */
  actual: number | boolean | string | undefined;
}

/**
 * States that count as "still the same" for a state a power change aims at: a service on its way
 * there (`stopping` for `stopped`), and for `running` one that has gone idle by itself since.
 */
const SAME_STATE: Record<string, readonly string[]> = {
  stopped: ['stopped', 'stopping'],
  running: ['running', 'starting', 'awaking', 'idle'],
};

/**
 * Where the service no longer shows the given values: the stale check before applying (against
 * the values the change replaces) and the "changed by hand" check before a revert (against the
 * values it set). Empty when every value is still there.
 */
export function capacityDifferences(service: ServiceRecord, expected: CapacityValues): CapacityDifference[] {
  const differences: CapacityDifference[] = [];
  for (const field of fieldsOf(expected)) {
    const wanted = expected[field];
    if (wanted === undefined) continue;
    const actual = valueOf(service, field);
    const same =
      field === 'state' && typeof wanted === 'string' && typeof actual === 'string'
        ? (SAME_STATE[wanted] ?? [wanted]).includes(actual)
        : actual === wanted;
    if (!same) differences.push({ field, expected: wanted, actual });
  }
  return differences;
}

const FIELD_NAMES: Record<CapacityField, string> = {
  numReplicas: 'replicas',
  minReplicas: 'minimum replicas',
  maxReplicas: 'maximum replicas',
  minReplicaMemoryGb: 'minimum memory per replica',
  maxReplicaMemoryGb: 'maximum memory per replica',
  idleScaling: 'idle scaling',
  idleTimeoutMinutes: 'idle timeout',
  state: 'state',
};

function valueText(field: CapacityField, value: number | boolean | string | undefined): string {
  if (value === undefined) return 'not shown';
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  if (field === 'minReplicaMemoryGb' || field === 'maxReplicaMemoryGb') return `${value} GB`;
  if (field === 'idleTimeoutMinutes') return `${value} minutes`;
  return String(value);
}

/** "replicas is 5, not 6; idle scaling is off, not on": plain text, numbers and words only. */
export function differencesText(differences: readonly CapacityDifference[]): string {
  return differences
    .map(
      ({ field, expected, actual }) =>
        `${FIELD_NAMES[field]} is ${valueText(field, actual)}, not ${valueText(field, expected)}`,
    )
    .join('; ');
}
