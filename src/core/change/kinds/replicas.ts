/** Replicas: a count under vertical autoscaling, a range under horizontal (`scale SERVICE replicas 2-6`). */
import { scalingModeOf, type CapacityField, type CapacityValues } from '../../capacity/values.js';
import type { Risk } from '../../policy/types.js';
import { rangeText, type Range } from '../../service/capacity.js';
import type { ServiceRecord } from '../../service/schema.js';
import type { ChangePlan } from '../types.js';
import {
  addCapacityTarget,
  growthRisks,
  readValues,
  replicaRange,
  reverseCapacity,
  sameValues,
  scalingExpectOf,
} from './capacity.js';
import type { ChangeKindModule, PlannedReverse } from './kind.js';

const REPLICA_FIELDS: readonly CapacityField[] = ['numReplicas', 'minReplicas', 'maxReplicas'];

/** The replica fields a change to this service touches: `numReplicas` in vertical mode, min/max in horizontal. */
function fieldsFor(service: ServiceRecord): readonly CapacityField[] {
  const mode = scalingModeOf(service);
  if (mode === 'vertical') return ['numReplicas'];
  if (mode === 'horizontal') return ['minReplicas', 'maxReplicas'];
  return REPLICA_FIELDS;
}

const text = (range: Range | undefined) => (range === undefined ? 'unknown' : rangeText(range));

function restore(before: CapacityValues | undefined) {
  return (reverse: PlannedReverse) => {
    const range = replicaRange(before);
    if (range) reverse.intent.replicas = range;
    else reverse.leftAlone.push('The service did not show its replicas before the change, so they cannot be restored.');
  };
}

function reverseReplicas(plan: ChangePlan, service: ServiceRecord, reverse: PlannedReverse): void {
  reverseCapacity(service, scalingExpectOf(plan, REPLICA_FIELDS), restore(plan.before.replicas), reverse);
}

function replicaRisks(plan: ChangePlan): Risk[] {
  const before = replicaRange(plan.before.replicas);
  const after = replicaRange(scalingExpectOf(plan, REPLICA_FIELDS));
  const risks = growthRisks(plan);
  if (before === undefined || after === undefined) return risks;
  if (after.max * 2 <= before.max) risks.push('capacity-down');
  if (after.min === 1 && before.min > 1) risks.push('single-replica');
  return risks;
}

export const replicasKind: ChangeKindModule<'replicas'> = {
  field: 'replicas',
  policyName: 'replicas',
  intents: ['replicas'],
  read: (service) => readValues(service, fieldsFor(service)),
  same: sameValues,
  plan(draft, service, intent) {
    const wanted = intent.replicas;
    if (wanted === undefined) return;
    const change = addCapacityTarget(draft, service, { kind: 'replicas', ...wanted }, 'replicas', 'replicas');
    if (!change) return;
    draft.changes.push({
      field: 'replicas',
      label: 'Replicas',
      before: text(replicaRange(change.before)),
      after: text(replicaRange(change.after)),
    });
  },
  // Not part of the update body: the replicaScaling operation's own check decides (operations.ts).
  visible: () => true,
  undo: reverseReplicas,
  risks: replicaRisks,
  possibleRisks: ['capacity-down', 'single-replica', 'capacity-up-large'],
  temporary: {
    grants: (intent) => intent.replicas !== undefined,
    problem: (plan) =>
      replicaRange(plan.before.replicas) === undefined
        ? 'The service does not show its replicas now, so the bot could not scale it back exactly: ask without for.'
        : undefined,
    revert: reverseReplicas,
  },
};
