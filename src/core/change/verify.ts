/**
 * Does the service now show the effect of a plan? Used when an update's outcome is unknown (a
 * timeout or a 5xx on PATCH, or a replica that died mid-update): re-read the service and decide
 * from what it shows, instead of guessing or replaying the change.
 */
import type { ServiceRecord } from '../service/schema.js';
import { currentState } from './state.js';
import type { ChangePlan } from './types.js';

export function planIsVisible(plan: ChangePlan, service: ServiceRecord): boolean {
  const now = currentState(service);
  const { update } = plan;
  const sources = new Map(now.ipAccessList.map((e) => [e.source, e.description ?? '']));
  const attached = new Set(now.privateEndpointIds);
  const tags = new Map(now.tags.map((t) => [t.key, t.value ?? '']));
  const tagsAdded = update.tags?.add ?? [];
  const checks = [
    update.name === undefined || now.name === update.name,
    update.releaseChannel === undefined || now.releaseChannel === update.releaseChannel,
    update.endpoints === undefined || update.endpoints.every((e) => now.mysqlEndpoint === e.enabled),
    update.transparentDataEncryptionKeyId === undefined || now.tdeKeyId === update.transparentDataEncryptionKeyId,
    (update.ipAccessList?.remove ?? []).every(
      (e) => !sources.has(e.source) || (update.ipAccessList?.add ?? []).some((a) => a.source === e.source),
    ),
    (update.ipAccessList?.add ?? []).every((e) => sources.get(e.source) === (e.description ?? '')),
    (update.privateEndpointIds?.remove ?? []).every((id) => !attached.has(id)),
    (update.privateEndpointIds?.add ?? []).every((id) => attached.has(id)),
    (update.tags?.remove ?? []).every((t) => !tags.has(t.key) || tagsAdded.some((a) => a.key === t.key)),
    tagsAdded.every((t) => tags.get(t.key) === (t.value ?? '')),
  ];
  return checks.every(Boolean);
}
