/** The fields of a service record that changes touch, read the same way everywhere. */
import type { AccessEntry, OutgoingTag, ServiceRecord } from '../service/schema.js';
import type { TouchedField, TouchedState } from './types.js';

/** The MySQL endpoint is on when the record lists it (and does not say it is disabled). */
export function mysqlEnabled(service: ServiceRecord): boolean {
  return (service.endpoints ?? []).some((e) => e.protocol === 'mysql' && e.enabled !== false);
}

/**
 * Only development services are held to the default release channel. Production and dedicated
 * tiers may switch, and so may a service whose (deprecated) tier is absent or null, which the
 * official Terraform provider treats like production.
 */
export function mayLeaveDefaultChannel(service: ServiceRecord): boolean {
  return service.tier !== 'development';
}

export function currentState(service: ServiceRecord): Required<TouchedState> {
  return {
    name: service.name,
    releaseChannel: service.releaseChannel ?? null,
    mysqlEndpoint: mysqlEnabled(service),
    ipAccessList: (service.ipAccessList ?? []).map((e) => ({ source: e.source, description: e.description ?? '' })),
    privateEndpointIds: [...(service.privateEndpointIds ?? [])],
    tdeKeyId: service.transparentDataEncryptionKeyId ?? null,
    tags: (service.tags ?? []).map((t) => (t.value === undefined ? { key: t.key } : { key: t.key, value: t.value })),
  };
}

/**
 * The touched fields whose value changed since the request was made. A non-empty answer means
 * approving would apply a change to a service that no longer looks like what people reviewed.
 */
export function staleFields(before: TouchedState, service: ServiceRecord): TouchedField[] {
  const now = currentState(service);
  return (Object.keys(before) as TouchedField[]).filter((field) => !sameValue(field, before[field], now[field]));
}

function sameValue(field: TouchedField, a: TouchedState[TouchedField], b: TouchedState[TouchedField]): boolean {
  if (field === 'ipAccessList') return accessKey(a as AccessEntry[]) === accessKey(b as AccessEntry[]);
  if (field === 'privateEndpointIds')
    return [...(a as string[])].sort().join(',') === [...(b as string[])].sort().join(',');
  if (field === 'tags') return tagsKey(a as OutgoingTag[]) === tagsKey(b as OutgoingTag[]);
  return (a ?? null) === (b ?? null);
}

/** A tag without a value and one with an empty value read the same, as tag filters treat them. */
function tagsKey(tags: OutgoingTag[] | undefined): string {
  return (tags ?? [])
    .map((t) => `${t.key}\u0000${t.value ?? ''}`)
    .sort()
    .join('\u0001');
}

function accessKey(entries: AccessEntry[] | undefined): string {
  return (entries ?? [])
    .map((e) => `${e.source}\u0000${e.description ?? ''}`)
    .sort()
    .join('\u0001');
}
