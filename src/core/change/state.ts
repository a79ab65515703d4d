/** The fields of a service record that changes touch, read the same way everywhere. */
import type { AccessEntry, ServiceRecord } from '../service/schema.js';
import type { TouchedField, TouchedState } from './types.js';

/** A /0 block admits every address of its family, however its address part is spelled. */
export function opensToWorld(source: string): boolean {
  return /\/0+$/.test(source.trim());
}

/** The MySQL endpoint is on when the record lists it (and does not say it is disabled). */
export function mysqlEnabled(service: ServiceRecord): boolean {
  return (service.endpoints ?? []).some((e) => e.protocol === 'mysql' && e.enabled !== false);
}

/** The tier field is deprecated and may be absent: then only the API can tell, so we let it. */
export function isProductionOrUnknown(service: ServiceRecord): boolean {
  return !service.tier || service.tier === 'production';
}

export function currentState(service: ServiceRecord): Required<TouchedState> {
  return {
    name: service.name,
    releaseChannel: service.releaseChannel ?? null,
    mysqlEndpoint: mysqlEnabled(service),
    ipAccessList: (service.ipAccessList ?? []).map((e) => ({ source: e.source, description: e.description ?? '' })),
    privateEndpointIds: [...(service.privateEndpointIds ?? [])],
    tdeKeyId: service.transparentDataEncryptionKeyId ?? null,
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
  if (field === 'privateEndpointIds') return [...(a as string[])].sort().join(',') === [...(b as string[])].sort().join(',');
  return (a ?? null) === (b ?? null);
}

function accessKey(entries: AccessEntry[] | undefined): string {
  return (entries ?? [])
    .map((e) => `${e.source}\u0000${e.description ?? ''}`)
    .sort()
    .join('\u0001');
}
