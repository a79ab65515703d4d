/** Private endpoints attached to the service (only those available to it). */
import type { ChangePlan } from '../types.js';
import { echo } from '../../command/arguments.js';
import type { ArgumentReader } from '../../command/reader.js';
import type { Token } from '../../command/tokenize.js';
import { fitsValue, multiSelect, option, selectedValues } from '../../render/form-inputs.js';
import type { ServiceRecord } from '../../service/schema.js';
import { z } from 'zod';
import { kindDrift, setChanges } from './drift-parts.js';
import type { KindForm } from './form-parts.js';
import type { ChangeKindModule, KindCommand } from './kind.js';
import { sameEntries, unique } from './kind.js';

const privateEndpoint: KindCommand = {
  name: 'private-endpoint',
  usage: 'private-endpoint attach|detach SERVICE ENDPOINT_ID',
  example: 'private-endpoint attach metrics-prod vpce-0a1b2c3d4e5f60002',
  summary: 'Request that a private endpoint be attached to or detached from a service.',
  fixedWords: 2,
  parse(args: Token[], read: ArgumentReader) {
    const [action, service, endpoint, ...extra] = args;
    const what = 'attach or detach, the service and the private endpoint id';
    if (action === undefined) read.missing(what);
    const word = action.text.toLowerCase();
    if (word !== 'attach' && word !== 'detach') {
      read.fail(`Say attach or detach first, not ${echo(action.text)}, like this: ${read.spec.example}`);
    }
    const value = read.service(service, what);
    const id = read.id(endpoint, what);
    read.rejectExtra(extra, 'one service and one endpoint id');
    const intent = word === 'attach' ? { privateEndpointAttach: [id] } : { privateEndpointDetach: [id] };
    return read.change(value, intent, undefined, `private-endpoint ${word}`);
  },
};

const touched = (plan: ChangePlan) => [
  ...(plan.update.privateEndpointIds?.add ?? []),
  ...(plan.update.privateEndpointIds?.remove ?? []),
];

const sortedKey = (ids: string[] | null | undefined) => [...(ids ?? [])].sort().join(',');

function attachable(service: ServiceRecord): string[] {
  const attached = new Set(service.privateEndpointIds ?? []);
  return (service.availablePrivateEndpointIds ?? []).filter((id) => !attached.has(id) && fitsValue(id));
}

const privateEndpointsForm: KindForm = {
  blockIds: { attach: 'pe_attach', detach: 'pe_detach' },
  problemBlock: { privateEndpointDetach: 'pe_detach' },
  blocks: (service) => [
    ...multiSelect(
      'pe_attach',
      'Private endpoints to attach',
      attachable(service).map((id) => option(id, id)),
    ),
    ...multiSelect(
      'pe_detach',
      'Private endpoints to detach',
      (service.privateEndpointIds ?? []).filter(fitsValue).map((id) => option(id, id)),
    ),
  ],
  read(values) {
    const [attach, detach] = [selectedValues(values, 'pe_attach'), selectedValues(values, 'pe_detach')];
    return {
      intent: {
        ...(attach.length > 0 ? { privateEndpointAttach: attach } : {}),
        ...(detach.length > 0 ? { privateEndpointDetach: detach } : {}),
      },
    };
  },
};

export const privateEndpointsKind: ChangeKindModule<'privateEndpointIds'> = {
  field: 'privateEndpointIds',
  policyName: 'private-endpoints',
  intents: ['privateEndpointAttach', 'privateEndpointDetach'],
  commands: [privateEndpoint],
  form: privateEndpointsForm,
  drift: kindDrift({
    key: 'privateEndpointIds',
    schema: z.array(z.string()),
    read: (service) =>
      service.privateEndpointIds === undefined ? undefined : [...new Set(service.privateEndpointIds)].sort(),
    diff(before, now) {
      const { added, removed } = setChanges(before, now);
      const label = 'Private endpoint';
      return [
        ...added.map((id) => ({
          kind: 'private-endpoint-attached',
          label,
          text: `Private endpoint: + ${id}`,
          subject: id,
        })),
        ...removed.map((id) => ({
          kind: 'private-endpoint-detached',
          label,
          text: `Private endpoint: − ${id}`,
          subject: id,
        })),
      ];
    },
    effects: (update) => [
      ...(update.privateEndpointIds?.add ?? []).map((id) => ({ kind: 'private-endpoint-attached', subject: id })),
      ...(update.privateEndpointIds?.remove ?? []).map((id) => ({ kind: 'private-endpoint-detached', subject: id })),
    ],
    activityTypes: {
      'private-endpoint-attached': ['service_update_private_endpoints'],
      'private-endpoint-detached': ['service_update_private_endpoints'],
    },
  }),
  read: (service) => [...(service.privateEndpointIds ?? [])],
  same: (a, b) => sortedKey(a) === sortedKey(b),
  entriesSame(plan, service) {
    const id = (entry: string) => entry;
    return sameEntries(plan.before.privateEndpointIds ?? [], service.privateEndpointIds ?? [], id, id, touched(plan));
  },
  touchedEntries: touched,
  plan(draft, service, intent) {
    const attached = new Set(service.privateEndpointIds ?? []);
    const available = new Set(service.availablePrivateEndpointIds ?? []);
    const attach: string[] = [];
    const detach: string[] = [];
    for (const id of unique(intent.privateEndpointAttach ?? [])) {
      if (attached.has(id)) continue;
      if (!available.has(id)) {
        draft.problems.push({
          field: 'privateEndpointAttach',
          message: `Private endpoint ${id} is not available to this service${available.size > 0 ? `; available: ${[...available].join(', ')}` : ''}.`,
        });
      } else attach.push(id);
    }
    for (const id of unique(intent.privateEndpointDetach ?? [])) {
      if (!attached.has(id)) {
        draft.problems.push({
          field: 'privateEndpointDetach',
          message: `Private endpoint ${id} is not attached to this service.`,
        });
      } else detach.push(id);
    }
    if (attach.length === 0 && detach.length === 0) return;
    draft.update.privateEndpointIds = {
      ...(detach.length > 0 ? { remove: detach } : {}),
      ...(attach.length > 0 ? { add: attach } : {}),
    };
    draft.touched.add('privateEndpointIds');
    for (const id of detach)
      draft.changes.push({ field: 'privateEndpointIds', label: 'Private endpoint', before: id, after: 'detached' });
    for (const id of attach)
      draft.changes.push({ field: 'privateEndpointIds', label: 'Private endpoint', before: 'not attached', after: id });
  },
  visible(update, service) {
    const attached = new Set(service.privateEndpointIds ?? []);
    return (
      (update.privateEndpointIds?.remove ?? []).every((id) => !attached.has(id)) &&
      (update.privateEndpointIds?.add ?? []).every((id) => attached.has(id))
    );
  },
  undo(plan, service, reverse) {
    const attached = new Set(service.privateEndpointIds ?? []);
    const attach: string[] = [];
    const detach: string[] = [];
    for (const id of plan.update.privateEndpointIds?.add ?? []) {
      if (attached.has(id)) detach.push(id);
      else reverse.leftAlone.push(`Private endpoint ${id} is already detached.`);
    }
    for (const id of plan.update.privateEndpointIds?.remove ?? []) {
      if (attached.has(id)) reverse.leftAlone.push(`Private endpoint ${id} is already attached again.`);
      else attach.push(id);
    }
    if (attach.length > 0) reverse.intent.privateEndpointAttach = attach;
    if (detach.length > 0) reverse.intent.privateEndpointDetach = detach;
  },
  risks: () => [],
  possibleRisks: [],
};
