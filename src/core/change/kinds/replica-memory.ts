/** Memory per replica: one size, or a range under vertical autoscaling (`scale SERVICE memory 16-64`). */
import type { CapacityField, CapacityValues } from '../../capacity/values.js';
import type { Risk } from '../../policy/types.js';
import { rangeText, type Range } from '../../service/capacity.js';
import type { ServiceRecord } from '../../service/schema.js';
import type { ChangePlan } from '../types.js';
import {
  addCapacityTarget,
  growthRisks,
  memoryRange,
  readValues,
  reverseCapacity,
  sameValues,
  scalingExpectOf,
} from './capacity.js';
import type { ChangeKindModule, PlannedReverse } from './kind.js';

const MEMORY_FIELDS: readonly CapacityField[] = ['minReplicaMemoryGb', 'maxReplicaMemoryGb'];

/** "16 GB", "8–32 GB": the same form as `show`. */
const text = (range: Range | undefined) => (range === undefined ? 'unknown' : `${rangeText(range)} GB`);

function restore(before: CapacityValues | undefined) {
  return (reverse: PlannedReverse) => {
    const range = memoryRange(before);
    if (range) reverse.intent.replicaMemoryGb = range;
    else
      reverse.leftAlone.push(
        'The service did not show its memory per replica before the change, so it cannot be restored.',
      );
  };
}

function reverseMemory(plan: ChangePlan, service: ServiceRecord, reverse: PlannedReverse): void {
  reverseCapacity(service, scalingExpectOf(plan, MEMORY_FIELDS), restore(plan.before.replicaMemory), reverse);
}

function memoryRisks(plan: ChangePlan): Risk[] {
  const risks = growthRisks(plan);
  const before = memoryRange(plan.before.replicaMemory);
  const after = memoryRange(scalingExpectOf(plan, MEMORY_FIELDS));
  if (before !== undefined && after !== undefined && after.max * 2 <= before.max) risks.push('capacity-down');
  return risks;
}

export const replicaMemoryKind: ChangeKindModule<'replicaMemory'> = {
  field: 'replicaMemory',
  policyName: 'memory',
  intents: ['replicaMemoryGb'],
  read: (service) => readValues(service, MEMORY_FIELDS),
  same: sameValues,
  plan(draft, service, intent) {
    const wanted = intent.replicaMemoryGb;
    if (wanted === undefined) return;
    const target = { kind: 'memory', minGb: wanted.min, maxGb: wanted.max } as const;
    const change = addCapacityTarget(draft, service, target, 'replicaMemory', 'replicaMemoryGb');
    if (!change) return;
    draft.changes.push({
      field: 'replicaMemory',
      label: 'Memory per replica',
      before: text(memoryRange(change.before)),
      after: text(memoryRange(change.after)),
    });
  },
  // Not part of the update body: the replicaScaling operation's own check decides (operations.ts).
  visible: () => true,
  undo: reverseMemory,
  risks: memoryRisks,
  possibleRisks: ['capacity-down', 'capacity-up-large'],
  temporary: {
    grants: (intent) => intent.replicaMemoryGb !== undefined,
    problem: (plan) =>
      memoryRange(plan.before.replicaMemory) === undefined
        ? 'The service does not show its memory per replica now, so the bot could not set it back exactly: ask without for.'
        : undefined,
    revert: reverseMemory,
  },
};
