/** The MySQL endpoint, on or off: the one endpoint the API lets a change switch. */
import type { ServiceRecord } from '../../service/schema.js';
import { checkSwitch, checkSwitchableProtocol, echo, isSwitchWord } from '../../command/arguments.js';
import type { ArgumentReader } from '../../command/reader.js';
import type { Token } from '../../command/tokenize.js';
import { ACTION, input, option, selectedValue } from '../../render/form-inputs.js';
import { z } from 'zod';
import { DRIFT_OUTSIDE_BOT, kindDrift, setChanges, type DriftFinding } from './drift-parts.js';
import type { KindForm } from './form-parts.js';
import type { ChangeKindModule, KindCommand } from './kind.js';
import { onOff, sameScalar } from './kind.js';

const endpoint: KindCommand = {
  name: 'endpoint',
  usage: 'endpoint SERVICE mysql on|off [for DURATION]',
  example: 'endpoint orders-prod mysql on',
  summary: 'Request that the MySQL endpoint be switched on or off; on for 30m, 2h or 3d is switched off again then.',
  temporaryForm: 'endpoint … mysql on',
  parse(words: Token[], read: ArgumentReader) {
    const { args, durationMs } = read.splitDuration(words, 3);
    const [service, protocol, state, ...extra] = args;
    const what = 'the service, the endpoint (mysql) and on or off';
    const value = read.service(service, what);
    if (protocol === undefined) read.missing(what);
    if (state === undefined && isSwitchWord(protocol.text)) {
      read.fail(`Name the endpoint before ${echo(protocol.text)}, like this: ${read.spec.example}`);
    }
    read.must(checkSwitchableProtocol(protocol.text));
    if (state === undefined) read.missing('whether to switch it on or off');
    const enabled = read.must(checkSwitch(state.text));
    read.rejectExtra(extra, 'a service, mysql and on or off, then optionally for DURATION');
    if (durationMs !== undefined && !enabled)
      read.fail('Only switching MySQL on can be temporary: the bot switches it off again when the time is up.');
    return read.change(value, { mysqlEndpoint: enabled }, durationMs);
  },
};

/** The MySQL endpoint is on when the record lists it (and does not say it is disabled). */
export function mysqlEnabled(service: ServiceRecord): boolean {
  return (service.endpoints ?? []).some((e) => e.protocol === 'mysql' && e.enabled !== false);
}

const switchedOn = (plan: { update: { endpoints?: Array<{ protocol: string; enabled: boolean }> } }) =>
  (plan.update.endpoints ?? []).some((e) => e.protocol === 'mysql' && e.enabled);

/** The endpoint protocols the API knows; switching any of them on or off is drift. */
const PROTOCOLS = { mysql: 'MySQL', https: 'HTTPS', nativesecure: 'Native secure' } as const;
type Protocol = keyof typeof PROTOCOLS;
const isProtocol = (protocol: string): protocol is Protocol => Object.hasOwn(PROTOCOLS, protocol);

/** Enabled protocols, sorted; a listed endpoint is on unless it says otherwise, as mysqlEnabled reads it. */
function enabledProtocols(service: ServiceRecord): Protocol[] | undefined {
  if (service.endpoints === undefined) return undefined;
  const enabled = service.endpoints.filter((e) => e.enabled !== false).map((e) => e.protocol);
  return [...new Set(enabled.filter(isProtocol))].sort();
}

function endpointFinding(protocol: Protocol, on: boolean): DriftFinding {
  // Only MySQL can be switched through the API (and so through the bot); the others are the service's.
  const label = protocol === 'mysql' ? 'MySQL endpoint' : DRIFT_OUTSIDE_BOT;
  const text = `${PROTOCOLS[protocol]} endpoint switched ${on ? 'on' : 'off'}`;
  return { kind: on ? 'endpoint-enabled' : 'endpoint-disabled', label, text, subject: on ? 'on' : 'off' };
}

const ON = option('On', 'on');
const OFF = option('Off', 'off');

const mysqlForm: KindForm = {
  blockIds: { mysql: 'mysql' },
  shown: mysqlEnabled,
  blocks: (service) => [
    input('mysql', 'MySQL endpoint', {
      type: 'radio_buttons',
      action_id: ACTION,
      options: [ON, OFF],
      initial_option: mysqlEnabled(service) ? ON : OFF,
    }),
  ],
  read(values, shown) {
    const chosen = selectedValue(values, 'mysql');
    return { intent: chosen && (chosen === 'on') !== shown ? { mysqlEndpoint: chosen === 'on' } : {} };
  },
};

export const mysqlEndpointKind: ChangeKindModule<'mysqlEndpoint'> = {
  field: 'mysqlEndpoint',
  policyName: 'mysql-endpoint',
  intents: ['mysqlEndpoint'],
  commands: [endpoint],
  form: mysqlForm,
  drift: kindDrift({
    key: 'endpoints',
    schema: z.array(z.enum(['mysql', 'https', 'nativesecure'])),
    read: enabledProtocols,
    diff(before, now) {
      const { added, removed } = setChanges(before, now);
      return [...added.map((p) => endpointFinding(p, true)), ...removed.map((p) => endpointFinding(p, false))];
    },
    effects: (update) =>
      (update.endpoints ?? []).map((endpoint) =>
        endpoint.enabled ? { kind: 'endpoint-enabled', subject: 'on' } : { kind: 'endpoint-disabled', subject: 'off' },
      ),
    activityTypes: {
      'endpoint-enabled': ['service_update_mysql_interface'],
      'endpoint-disabled': ['service_update_mysql_interface'],
    },
  }),
  read: mysqlEnabled,
  same: sameScalar,
  plan(draft, service, intent) {
    const wanted = intent.mysqlEndpoint;
    const enabled = mysqlEnabled(service);
    if (wanted === undefined || wanted === enabled) return;
    draft.update.endpoints = [{ protocol: 'mysql', enabled: wanted }];
    draft.touched.add('mysqlEndpoint');
    draft.changes.push({
      field: 'mysqlEndpoint',
      label: 'MySQL endpoint',
      before: onOff(enabled),
      after: onOff(wanted),
    });
    if (wanted)
      draft.warnings.push('The MySQL endpoint will be opened: MySQL clients will be able to connect to this service.');
  },
  visible: (update, service) =>
    update.endpoints === undefined || update.endpoints.every((e) => mysqlEnabled(service) === e.enabled),
  undo(plan, service, reverse) {
    for (const endpoint of plan.update.endpoints ?? []) {
      if (endpoint.protocol !== 'mysql') continue;
      if (mysqlEnabled(service) === endpoint.enabled) reverse.intent.mysqlEndpoint = !endpoint.enabled;
      else reverse.leftAlone.push(`The MySQL endpoint is no longer ${endpoint.enabled ? 'on' : 'off'}.`);
    }
  },
  risks: (plan) => (switchedOn(plan) ? ['mysql-on'] : []),
  possibleRisks: ['mysql-on'],
  temporary: {
    grants: (intent) => intent.mysqlEndpoint === true,
    problem: () => undefined,
    revert(plan, service, reverse) {
      if (!switchedOn(plan)) return;
      if (mysqlEnabled(service)) reverse.intent.mysqlEndpoint = false;
      else reverse.leftAlone.push('The MySQL endpoint is already off (someone switched it off), so it was left off.');
    },
  },
};
