/** Replicas: a count under vertical autoscaling, a range under horizontal (`scale SERVICE replicas 2-6`). */
import { scalingModeOf, type CapacityField, type CapacityValues } from '../../capacity/values.js';
import type { Risk } from '../../policy/types.js';
import { rangeText, type Range } from '../../service/capacity.js';
import type { ServiceRecord } from '../../service/schema.js';
import type { ChangePlan } from '../types.js';
import {
  addCapacityTarget,
  growthRisks,
  lowered,
  readValues,
  replicaRange,
  reverseCapacity,
  sameValues,
  scalingExpectOf,
} from './capacity.js';
import { checkReplicaMemory, checkReplicas, echo } from '../../command/arguments.js';
import { textOf } from '../../command/reader.js';
import type { ArgumentReader } from '../../command/reader.js';
import type { Token } from '../../command/tokenize.js';
import type { ChangeKindModule, KindCommand, PlannedReverse } from './kind.js';
import { baselineCapacity } from '../../service/capacity.js';
import { rangeForm, rangeInput } from './capacity.js';

/** `scale` asks for replicas or for memory per replica (replica-memory.ts): declared once, here. */
const scale: KindCommand = {
  name: 'scale',
  usage: 'scale SERVICE replicas|memory VALUE [for DURATION]',
  example: 'scale orders-prod replicas 6 for 4h',
  summary:
    'Request replicas (N, or MIN-MAX under horizontal autoscaling) or memory per replica (GB, or MIN-MAX under vertical autoscaling); with for 4h the bot scales back then.',
  more: ['scale search-prod replicas 2-8', 'scale orders-prod memory 16-64', 'scale search-prod memory 32'],
  temporaryForm: 'scale',
  parse(words: Token[], read: ArgumentReader) {
    const { args, durationMs } = read.splitDuration(words, 3);
    const [service, what, ...valueWords] = args;
    const asked = 'the service, replicas or memory, and the value';
    const value = read.service(service, asked);
    if (what === undefined) read.missing(asked);
    const word = what.text.toLowerCase();
    if (word !== 'replicas' && word !== 'replica' && word !== 'memory') {
      read.fail(`scale sets replicas or memory, not ${echo(what.text)}, like this: ${read.spec.example}`);
    }
    if (valueWords.length === 0) {
      const [amount, example] =
        word === 'memory'
          ? ['the memory per replica in GB', read.exampleAbout('memory')]
          : ['how many replicas', read.exampleAbout('replicas')];
      read.fail(`Tell me ${amount}, like this: ${example}`);
    }
    const text = textOf(valueWords).join(' ');
    const intent =
      word === 'memory'
        ? { replicaMemoryGb: read.must(checkReplicaMemory(text)) }
        : { replicas: read.must(checkReplicas(text)) };
    return read.change(value, intent, durationMs);
  },
};

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

/** The risks of the plan, or (`reverted`) of its revert: the same change the other way. */
function replicaRisks(plan: ChangePlan, reverted = false): Risk[] {
  const replaced = replicaRange(plan.before.replicas);
  const set = replicaRange(scalingExpectOf(plan, REPLICA_FIELDS));
  const [before, after] = reverted ? [set, replaced] : [replaced, set];
  const risks = growthRisks(plan, reverted);
  if (before === undefined || after === undefined) return risks;
  if (after.max * 2 <= before.max) risks.push('capacity-down');
  if (after.min === 1 && before.min > 1) risks.push('single-replica');
  return risks;
}

export const replicasKind: ChangeKindModule<'replicas'> = {
  field: 'replicas',
  policyName: 'replicas',
  intents: ['replicas'],
  commands: [scale],
  form: rangeForm({
    name: 'replicas',
    blockId: 'replicas',
    label: 'Replicas',
    hint: 'A count like 3, or a range like 2-6 under horizontal autoscaling.',
    shown: (service) => rangeInput(baselineCapacity(service).replicas),
    check: checkReplicas,
    intent: (replicas) => ({ replicas }),
  }),
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
  risks: (plan) => replicaRisks(plan),
  possibleRisks: ['capacity-down', 'single-replica', 'capacity-up-large'],
  loadConcern: (plan) =>
    lowered(replicaRange(plan.before.replicas), replicaRange(scalingExpectOf(plan, REPLICA_FIELDS))) ? {} : undefined,
  temporary: {
    grants: (intent) => intent.replicas !== undefined,
    problem: (plan) =>
      replicaRange(plan.before.replicas) === undefined
        ? 'The service does not show its replicas now, so the bot could not scale it back exactly: ask without for.'
        : undefined,
    revert: reverseReplicas,
    revertRisks: (plan) => replicaRisks(plan, true),
  },
};
