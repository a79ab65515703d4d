/** Power: stop, start, or wake an idle service (PATCH …/state). */
import type { PowerAction } from '../../capacity/plan.js';
import type { ServiceRecord } from '../../service/schema.js';
import { stateInfo } from '../../service/states.js';
import type { ChangePlan } from '../types.js';
import { addCapacityTarget, reverseCapacity } from './capacity.js';
import type { ArgumentReader } from '../../command/reader.js';
import type { Token } from '../../command/tokenize.js';
import type { ChangeKindModule, KindCommand, PlannedReverse } from './kind.js';

/**
 * States that are the same for a power change that was reviewed: a running service that went idle
 * by itself can still be stopped, a stopping one is as good as stopped. The stale check compares
 * these groups, not the raw state.
 */
const GROUPS: Record<string, string> = {
  running: 'up',
  idle: 'up',
  degraded: 'up',
  partially_running: 'up',
  stopped: 'down',
  stopping: 'down',
  starting: 'coming up',
  awaking: 'coming up',
};
const groupOf = (state: string | null | undefined) => (state ? (GROUPS[state] ?? state) : null);

/** What the plan's state operation does, in people's words. */
export function powerActionOf(plan: ChangePlan): PowerAction | undefined {
  const command = plan.operations?.find((operation) => operation.endpoint === 'state')?.body.command;
  if (command === 'awake') return 'wake';
  return command;
}

const INVERSE: Record<PowerAction, PowerAction | undefined> = { stop: 'start', start: 'stop', wake: undefined };

function reversePower(plan: ChangePlan, service: ServiceRecord, reverse: PlannedReverse): void {
  const action = powerActionOf(plan);
  const operation = plan.operations?.find((o) => o.endpoint === 'state');
  if (action === undefined || operation === undefined) return;
  const inverse = INVERSE[action];
  if (inverse === undefined) {
    reverse.leftAlone.push(
      'A woken service goes idle again by itself after its idle timeout: there is nothing to undo.',
    );
    return;
  }
  reverseCapacity(service, operation.expect, (r) => (r.intent.power = inverse), reverse);
}

const label = (state: string | null | undefined) => (state ? stateInfo(state).label : 'unknown');

function parsePower(name: PowerAction, words: Token[], read: ArgumentReader) {
  const temporary = name === 'wake' ? { args: words } : read.splitDuration(words, 1);
  const [service, ...extra] = temporary.args;
  const value = read.service(service, 'which service');
  const more =
    name === 'wake'
      ? 'one service (a woken service goes idle again by itself, so wake takes no for)'
      : 'one service, then optionally for DURATION';
  read.rejectExtra(extra, more);
  return read.change(value, { power: name }, 'durationMs' in temporary ? temporary.durationMs : undefined);
}

const powerCommands: KindCommand[] = [
  {
    name: 'stop',
    usage: 'stop SERVICE [for DURATION]',
    example: 'stop events-staging for 2h',
    summary: 'Request that a running or idle service be stopped; with for 2h the bot starts it again then.',
    temporaryForm: 'stop',
    parse: (args, read) => parsePower('stop', args, read),
  },
  {
    name: 'start',
    usage: 'start SERVICE [for DURATION]',
    example: 'start orders-staging for 8h',
    summary: 'Request that a stopped service be started; with for 8h the bot stops it again then.',
    temporaryForm: 'start',
    parse: (args, read) => parsePower('start', args, read),
  },
  {
    name: 'wake',
    usage: 'wake SERVICE',
    example: 'wake "analytics staging"',
    summary: 'Request that an idle service be woken up now.',
    parse: (args, read) => parsePower('wake', args, read),
  },
];

export const powerKind: ChangeKindModule<'power'> = {
  field: 'power',
  policyName: 'power',
  intents: ['power'],
  commands: powerCommands,
  read: (service) => service.state ?? null,
  same: (a, b) => groupOf(a) === groupOf(b),
  plan(draft, service, intent) {
    const action = intent.power;
    if (action === undefined) return;
    const change = addCapacityTarget(draft, service, { kind: 'power', action }, 'power', 'power');
    if (!change) return;
    draft.changes.push({
      field: 'power',
      label: 'State',
      before: label(service.state),
      after: label(change.after.state),
    });
  },
  // Not part of the update body: the state operation's own check decides (operations.ts).
  visible: () => true,
  undo: reversePower,
  risks: (plan) => (powerActionOf(plan) === 'stop' ? ['stop'] : []),
  possibleRisks: ['stop'],
  // A stop ends every query running on it.
  loadConcern: (plan) => (powerActionOf(plan) === 'stop' ? { endsQueries: true } : undefined),
  temporary: {
    grants: (intent) => intent.power === 'start' || intent.power === 'stop',
    problem: () => undefined,
    revert: reversePower,
    // The revert of a start is a stop.
    revertRisks: (plan) => (powerActionOf(plan) === 'start' ? ['stop'] : []),
  },
};
