/**
 * What a change request is matched on: the service before and after the change, the kinds of
 * change it makes and the risks it carries. Derived from the plan, so the rules see exactly what
 * approval would send.
 */
import type { ServiceRecord } from '../service/schema.js';
import { ipExposure } from '../posture/exposure.js';
import type { ChangePlan, TouchedField } from '../change/types.js';
import type { ChangeKind, RequestFacts, Risk, ServiceSide } from './types.js';

/** A record, not a list: a field added to TouchedField without a kind fails to compile. */
const KIND_OF_FIELD: Record<TouchedField, ChangeKind> = {
  name: 'name',
  ipAccessList: 'ip-access',
  privateEndpointIds: 'private-endpoints',
  releaseChannel: 'release-channel',
  mysqlEndpoint: 'mysql-endpoint',
  tdeKeyId: 'encryption-key',
  tags: 'tags',
};

export function serviceSide(service: Pick<ServiceRecord, 'id' | 'name' | 'tags'>): ServiceSide {
  return {
    id: service.id,
    name: service.name,
    tags: new Map((service.tags ?? []).map((tag) => [tag.key, tag.value ?? ''])),
  };
}

export function requestFacts(service: ServiceRecord, plan: ChangePlan): RequestFacts {
  const before = serviceSide(service);
  const after: ServiceSide = { ...before, name: plan.update.name ?? before.name, tags: tagsAfter(before.tags, plan) };
  return {
    before,
    after,
    changes: [...new Set(plan.changes.map((change) => KIND_OF_FIELD[change.field]))],
    risks: planRisks(plan),
  };
}

/** The API removes before it adds (remove matches the key). */
function tagsAfter(tags: ReadonlyMap<string, string>, plan: ChangePlan): ReadonlyMap<string, string> {
  const edits = plan.update.tags;
  if (!edits) return tags;
  const after = new Map(tags);
  for (const tag of edits.remove ?? []) after.delete(tag.key);
  for (const tag of edits.add ?? []) after.set(tag.key, tag.value ?? '');
  return after;
}

export function planRisks(plan: ChangePlan): Risk[] {
  const risks = new Set<Risk>();
  const adds = plan.update.ipAccessList?.add ?? [];
  if (plan.update.ipAccessList !== undefined) {
    const remaining = new Set((plan.before.ipAccessList ?? []).map((entry) => entry.source));
    for (const entry of plan.update.ipAccessList.remove ?? []) remaining.delete(entry.source);
    for (const entry of adds) remaining.add(entry.source);
    // The same detection as the request's warnings and posture: a /0, or pieces that together
    // cover an address family, and single entries shorter than /8 (IPv4) or /16 (IPv6).
    const exposure = ipExposure([...remaining]);
    const added = new Set(adds.map((entry) => entry.source));
    if (exposure.open.some((open) => open.sources.some((source) => added.has(source)))) risks.add('world-open');
    if (adds.some((entry) => isBroad(entry.source))) risks.add('broad-ip');
    if (plan.before.ipAccessList !== undefined && remaining.size === 0) risks.add('last-ip-removed');
  }
  if ((plan.update.endpoints ?? []).some((endpoint) => endpoint.protocol === 'mysql' && endpoint.enabled))
    risks.add('mysql-on');
  return [...risks];
}

/** IPv4 shorter than /8 or IPv6 shorter than /16 (a /0 included) admits a large part of the internet. */
function isBroad(source: string): boolean {
  const match = /\/(\d+)$/.exec(source.trim());
  if (!match) return false;
  const prefix = Number(match[1]);
  return source.includes(':') ? prefix < 16 : prefix < 8;
}
