/** The MySQL endpoint, on or off: the one endpoint the API lets a change switch. */
import type { ServiceRecord } from '../../service/schema.js';
import type { ChangeKindModule } from './kind.js';
import { onOff, sameScalar } from './kind.js';

/** The MySQL endpoint is on when the record lists it (and does not say it is disabled). */
export function mysqlEnabled(service: ServiceRecord): boolean {
  return (service.endpoints ?? []).some((e) => e.protocol === 'mysql' && e.enabled !== false);
}

const switchedOn = (plan: { update: { endpoints?: Array<{ protocol: string; enabled: boolean }> } }) =>
  (plan.update.endpoints ?? []).some((e) => e.protocol === 'mysql' && e.enabled);

export const mysqlEndpointKind: ChangeKindModule<'mysqlEndpoint'> = {
  field: 'mysqlEndpoint',
  policyName: 'mysql-endpoint',
  intents: ['mysqlEndpoint'],
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
