/** Idle scaling and its timeout (`idle SERVICE on after 15m`, `idle SERVICE off`). */
import type { CapacityField, CapacityValues } from '../../capacity/values.js';
import type { ServiceRecord } from '../../service/schema.js';
import type { ChangePlan } from '../types.js';
import { addCapacityTarget, readValues, reverseCapacity, sameValues, scalingExpectOf } from './capacity.js';
import { checkSwitch } from '../../command/arguments.js';
import { DURATION_FORMS, readSpokenDuration } from '../../command/duration.js';
import { textOf } from '../../command/reader.js';
import type { ArgumentReader } from '../../command/reader.js';
import type { Token } from '../../command/tokenize.js';
import type { ChangeKindModule, KindCommand, PlannedReverse } from './kind.js';
import { z } from 'zod';
import { ACTION, input, option, selectedValue, textValue } from '../../render/form-inputs.js';
import type { Block } from '../../render/mrkdwn.js';
import { IDLE_TIMEOUT_MIN_MINUTES } from '../../service/schema.js';
import { CAPACITY_SECTION } from './capacity.js';
import type { KindForm } from './form-parts.js';

const IdleShown = z.object({ idle: z.boolean().optional(), idleTimeout: z.number().optional() });
const [IDLE, TIMEOUT] = ['idle_scaling', 'idle_timeout'];
const IDLE_ON = option('On: pause when idle', 'on');
const IDLE_OFF = option('Off: never pause', 'off');

function idleBlocks(shown: z.infer<typeof IdleShown>): Block[] {
  const blocks: Block[] = [];
  if (shown.idle !== undefined)
    blocks.push(
      input(IDLE, 'Idle scaling', {
        type: 'radio_buttons',
        action_id: ACTION,
        options: [IDLE_ON, IDLE_OFF],
        initial_option: shown.idle ? IDLE_ON : IDLE_OFF,
      }),
    );
  if (shown.idle !== undefined || shown.idleTimeout !== undefined)
    blocks.push(
      input(
        TIMEOUT,
        'Idle timeout (minutes)',
        {
          type: 'number_input',
          action_id: ACTION,
          is_decimal_allowed: false,
          min_value: String(IDLE_TIMEOUT_MIN_MINUTES),
          ...(shown.idleTimeout === undefined ? {} : { initial_value: String(shown.idleTimeout) }),
        },
        { optional: true, hint: `How long without queries before it pauses; at least ${IDLE_TIMEOUT_MIN_MINUTES}.` },
      ),
    );
  return blocks;
}

const idleForm: KindForm = {
  blockIds: { idle: IDLE, idleTimeout: TIMEOUT },
  section: CAPACITY_SECTION,
  shown: (service) =>
    service.idleScaling === undefined && service.idleTimeoutMinutes === undefined
      ? undefined
      : {
          ...(service.idleScaling === undefined ? {} : { idle: service.idleScaling }),
          ...(service.idleTimeoutMinutes === undefined ? {} : { idleTimeout: service.idleTimeoutMinutes }),
        },
  blocks: (_service, shown) => idleBlocks(IdleShown.catch({}).parse(shown)),
  read(values, shownValue) {
    const shown = IdleShown.catch({}).parse(shownValue);
    const chosen = selectedValue(values, IDLE);
    const enabled = chosen === undefined ? shown.idle : chosen === 'on';
    const timeoutText = textValue(values, TIMEOUT);
    const timeout = timeoutText === undefined ? undefined : Number(timeoutText);
    const problems: Record<string, string> = {};
    if (timeoutText !== undefined && !Number.isInteger(timeout))
      problems[TIMEOUT] = `The idle timeout is a whole number of minutes; "${timeoutText.slice(0, 20)}" is not.`;
    const newTimeout = timeout !== undefined && Number.isInteger(timeout) && timeout !== shown.idleTimeout;
    if (enabled === undefined || (enabled === shown.idle && !newTimeout)) return { intent: {}, problems };
    return { intent: { idleScaling: newTimeout ? { enabled, timeoutMinutes: timeout } : { enabled } }, problems };
  },
};

const idle: KindCommand = {
  name: 'idle',
  usage: 'idle SERVICE on [after DURATION]|off [for DURATION]',
  example: 'idle orders-prod on after 30m',
  summary: 'Request that the service pause when idle (after at least 5 minutes without queries), or never pause.',
  more: ['idle sandbox-dev off'],
  temporaryForm: 'idle',
  parse(words: Token[], read: ArgumentReader) {
    const { args, durationMs } = read.splitDuration(words, 2);
    const [service, state, ...rest] = args;
    const asked = 'the service and on or off';
    const value = read.service(service, asked);
    if (state === undefined) read.missing(asked);
    const enabled = read.must(checkSwitch(state.text));
    if (rest.length === 0) return read.change(value, { idleScaling: { enabled } }, durationMs);
    const [after, ...timeoutWords] = rest;
    if (!enabled || after?.text.toLowerCase() !== 'after') {
      read.rejectExtra(rest, 'a service, on or off, then optionally after DURATION (with on) and for DURATION', '');
    }
    const timeout = readSpokenDuration(textOf(timeoutWords));
    if (timeout.kind !== 'duration') {
      read.fail(`After how long? Write the idle timeout like after 15m or after 1h. ${DURATION_FORMS}.`);
    }
    const timeoutMinutes = timeout.ms / 60_000;
    return read.change(value, { idleScaling: { enabled, timeoutMinutes } }, durationMs);
  },
};

const IDLE_FIELDS: readonly CapacityField[] = ['idleScaling', 'idleTimeoutMinutes'];

/**
 * "on, after 15 minutes", "off": the timeout when it counts (on), or when the change sets a new one
 * (off, with its timeout for later), and the record shows it.
 */
function idleText(values: CapacityValues, timeoutChanges: boolean): string {
  if (values.idleScaling === undefined) return 'unknown';
  const timeout = values.idleTimeoutMinutes === undefined ? '' : `, after ${values.idleTimeoutMinutes} minutes`;
  if (!values.idleScaling) return timeoutChanges ? `off${timeout}` : 'off';
  return `on${timeout}`;
}

function restore(before: CapacityValues | undefined) {
  return (reverse: PlannedReverse) => {
    if (before?.idleScaling === undefined) {
      reverse.leftAlone.push('The service did not show its idle scaling before the change, so it cannot be restored.');
      return;
    }
    reverse.intent.idleScaling =
      before.idleTimeoutMinutes === undefined
        ? { enabled: before.idleScaling }
        : { enabled: before.idleScaling, timeoutMinutes: before.idleTimeoutMinutes };
  };
}

function reverseIdle(plan: ChangePlan, service: ServiceRecord, reverse: PlannedReverse): void {
  reverseCapacity(service, scalingExpectOf(plan, IDLE_FIELDS), restore(plan.before.idleScaling), reverse);
}

export const idleScalingKind: ChangeKindModule<'idleScaling'> = {
  field: 'idleScaling',
  policyName: 'idle-scaling',
  intents: ['idleScaling'],
  commands: [idle],
  form: idleForm,
  read: (service) => readValues(service, IDLE_FIELDS),
  same: sameValues,
  plan(draft, service, intent) {
    const wanted = intent.idleScaling;
    if (wanted === undefined) return;
    const change = addCapacityTarget(draft, service, { kind: 'idle', ...wanted }, 'idleScaling', 'idleScaling');
    if (!change) return;
    // A new timeout shows on both sides, even with idle scaling off, so approvers see what it sends.
    const after = { ...change.before, ...change.after };
    const timeoutChanges = after.idleTimeoutMinutes !== change.before.idleTimeoutMinutes && after.idleScaling === false;
    draft.changes.push({
      field: 'idleScaling',
      label: 'Idle scaling',
      before: idleText(change.before, timeoutChanges),
      after: idleText(after, timeoutChanges),
    });
  },
  // Not part of the update body: the replicaScaling operation's own check decides (operations.ts).
  visible: () => true,
  undo: reverseIdle,
  risks: () => [],
  possibleRisks: [],
  // An idle service has no replica to answer queries until one wakes it.
  loadConcern: (plan) =>
    scalingExpectOf(plan, IDLE_FIELDS).idleScaling === true && plan.before.idleScaling?.idleScaling !== true
      ? {}
      : undefined,
  temporary: {
    grants: (intent) => intent.idleScaling !== undefined,
    problem: (plan) =>
      plan.before.idleScaling?.idleScaling === undefined
        ? 'The service does not show its idle scaling now, so the bot could not set it back exactly: ask without for.'
        : undefined,
    revert: reverseIdle,
  },
};
