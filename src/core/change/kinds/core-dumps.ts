/**
 * Core dumps (`enableCoreDumps` of PATCH …/services/{id}): whether ClickHouse Cloud collects a
 * crash dump of the service, for its support to read. The pilot of one module per kind (issue 36):
 * its command, form input, plan, undo and drift are all here.
 */
import { z } from 'zod';
import { checkSwitch } from '../../command/arguments.js';
import type { ArgumentReader } from '../../command/reader.js';
import type { Token } from '../../command/tokenize.js';
import { ACTION, input, option, selectedValue } from '../../render/form-inputs.js';
import { kindDrift } from './drift-parts.js';
import type { KindForm } from './form-parts.js';
import type { ChangeKindModule, KindCommand } from './kind.js';
import { onOff, sameScalar } from './kind.js';

const LABEL = 'Core dumps';
const BLOCK_ID = 'core_dumps';

const coreDumps: KindCommand = {
  name: 'core-dumps',
  usage: 'core-dumps SERVICE on|off',
  example: 'core-dumps orders-prod on',
  summary: 'Request that crash dumps of the service be collected for ClickHouse support, or not.',
  parse(args: Token[], read: ArgumentReader) {
    const [service, state, ...extra] = args;
    const what = 'the service and on or off';
    const value = read.service(service, what);
    if (state === undefined) read.missing(what);
    const enabled = read.must(checkSwitch(state.text));
    read.rejectExtra(extra, 'a service and on or off');
    return read.change(value, { coreDumps: enabled });
  },
};

const ON = option('On', 'on');
const OFF = option('Off', 'off');

/** Shown only for a service whose record says (a record without the field leaves it alone). */
const coreDumpsForm: KindForm = {
  blockIds: { coreDumps: BLOCK_ID },
  shown: (service) => service.enableCoreDumps,
  blocks: (service) =>
    service.enableCoreDumps === undefined
      ? []
      : [
          input(BLOCK_ID, LABEL, {
            type: 'radio_buttons',
            action_id: ACTION,
            options: [ON, OFF],
            initial_option: service.enableCoreDumps ? ON : OFF,
          }),
        ],
  read(values, shown) {
    const chosen = selectedValue(values, BLOCK_ID);
    if (chosen === undefined || typeof shown !== 'boolean' || (chosen === 'on') === shown) return { intent: {} };
    return { intent: { coreDumps: chosen === 'on' } };
  },
};

export const coreDumpsKind: ChangeKindModule<'enableCoreDumps'> = {
  field: 'enableCoreDumps',
  policyName: 'core-dumps',
  intents: ['coreDumps'],
  commands: [coreDumps],
  form: coreDumpsForm,
  read: (service) => service.enableCoreDumps ?? null,
  same: sameScalar,
  plan(draft, service, intent) {
    const wanted = intent.coreDumps;
    if (wanted === undefined || wanted === service.enableCoreDumps) return;
    draft.update.enableCoreDumps = wanted;
    draft.touched.add('enableCoreDumps');
    const before = service.enableCoreDumps === undefined ? 'unknown' : onOff(service.enableCoreDumps);
    draft.changes.push({ field: 'enableCoreDumps', label: LABEL, before, after: onOff(wanted) });
  },
  visible: (update, service) =>
    update.enableCoreDumps === undefined || service.enableCoreDumps === update.enableCoreDumps,
  undo(plan, service, reverse) {
    const set = plan.update.enableCoreDumps;
    if (set === undefined) return;
    if (service.enableCoreDumps === set) reverse.intent.coreDumps = !set;
    else reverse.leftAlone.push(`Core dumps are no longer ${onOff(set)}.`);
  },
  risks: () => [],
  possibleRisks: [],
  drift: kindDrift({
    key: 'enableCoreDumps',
    schema: z.boolean(),
    read: (service) => service.enableCoreDumps,
    diff: (was, is) =>
      was === is
        ? []
        : [{ kind: 'core-dumps-switched', label: LABEL, text: `Core dumps switched ${onOff(is)}`, subject: onOff(is) }],
    effects: (update) =>
      update.enableCoreDumps === undefined
        ? []
        : [{ kind: 'core-dumps-switched', subject: onOff(update.enableCoreDumps) }],
    activityTypes: { 'core-dumps-switched': ['service_update_core_dump'] },
  }),
};
