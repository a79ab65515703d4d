/** Memory per replica: one size, or a range under vertical autoscaling (`scale SERVICE memory 16-64`). */
import type { CapacityField, CapacityValues } from '../../capacity/values.js';
import type { Risk } from '../../policy/types.js';
import { rangeText, type Range } from '../../service/capacity.js';
import type { ServiceRecord } from '../../service/schema.js';
import type { ChangePlan } from '../types.js';
import {
  addCapacityTarget,
  growthRisks,
  lowered,
  memoryRange,
  readValues,
  reverseCapacity,
  sameValues,
  scalingExpectOf,
} from './capacity.js';
import type { ChangeKindModule, PlannedReverse } from './kind.js';
import { checkReplicaMemory } from '../../command/arguments.js';
import { baselineCapacity } from '../../service/capacity.js';
import { rangeForm, rangeInput } from './capacity.js';

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

/** The risks of the plan, or (`reverted`) of its revert: the same change the other way. */
function memoryRisks(plan: ChangePlan, reverted = false): Risk[] {
  const risks = growthRisks(plan, reverted);
  const replaced = memoryRange(plan.before.replicaMemory);
  const set = memoryRange(scalingExpectOf(plan, MEMORY_FIELDS));
  const [before, after] = reverted ? [set, replaced] : [replaced, set];
  if (before !== undefined && after !== undefined && after.max * 2 <= before.max) risks.push('capacity-down');
  return risks;
}

export const replicaMemoryKind: ChangeKindModule<'replicaMemory'> = {
  field: 'replicaMemory',
  policyName: 'memory',
  intents: ['replicaMemoryGb'],
  form: rangeForm({
    name: 'memory',
    blockId: 'replica_memory',
    label: 'Memory per replica (GB)',
    hint: 'A multiple of 4 from 8 to 356, or a range like 16-64 under vertical autoscaling.',
    shown: (service) =>
      service.tier === 'development' ? undefined : rangeInput(baselineCapacity(service).replicaMemoryGb),
    check: checkReplicaMemory,
    intent: (replicaMemoryGb) => ({ replicaMemoryGb }),
  }),
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
  risks: (plan) => memoryRisks(plan),
  possibleRisks: ['capacity-down', 'capacity-up-large'],
  loadConcern(plan) {
    const after = memoryRange(scalingExpectOf(plan, MEMORY_FIELDS));
    return after && lowered(memoryRange(plan.before.replicaMemory), after)
      ? { newReplicaMemoryGb: after.max }
      : undefined;
  },
  temporary: {
    grants: (intent) => intent.replicaMemoryGb !== undefined,
    problem: (plan) =>
      memoryRange(plan.before.replicaMemory) === undefined
        ? 'The service does not show its memory per replica now, so the bot could not set it back exactly: ask without for.'
        : undefined,
    revert: reverseMemory,
    revertRisks: (plan) => memoryRisks(plan, true),
  },
};
