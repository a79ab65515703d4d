/**
 * The compact state of services that drift is computed from. It is stored as JSON (in Redis) for
 * every schedule, for organizations of thousands of services, so it keeps only what drift
 * compares, omits what a record did not say, and stores IP entries as [source, description] pairs.
 */
import { z } from 'zod';
import type { ServiceRecord } from '../service/schema.js';

/** The endpoint protocols the API knows; switching any of them on or off is drift. */
export const SNAPSHOT_PROTOCOLS = ['mysql', 'https', 'nativesecure'] as const;
export type SnapshotProtocol = (typeof SNAPSHOT_PROTOCOLS)[number];

/** Bumped when the stored shape changes: an older snapshot then fails to parse and is no baseline. */
export const SNAPSHOT_VERSION = 1;

/**
 * An absent field means "the record did not say", which is not the same as empty: drift is only
 * computed where both snapshots know the field, so a record missing a field never reads as
 * "every IP entry removed".
 */
export const ServiceSnapshotSchema = z.object({
  name: z.string(),
  releaseChannel: z.string().optional(),
  /** Enabled protocols, sorted. */
  endpoints: z.array(z.enum(SNAPSHOT_PROTOCOLS)).optional(),
  /** [source, description] pairs sorted by source; the description is '' when there is none. */
  ipAccessList: z.array(z.tuple([z.string(), z.string()])).optional(),
  privateEndpointIds: z.array(z.string()).optional(),
  tdeKeyId: z.string().optional(),
  state: z.string().optional(),
});
export type ServiceSnapshot = z.infer<typeof ServiceSnapshotSchema>;

export const SnapshotSchema = z.object({
  version: z.literal(SNAPSHOT_VERSION),
  takenAt: z.number(),
  services: z.record(z.string(), ServiceSnapshotSchema),
});
export type Snapshot = z.infer<typeof SnapshotSchema>;

export function takeSnapshot(services: readonly ServiceRecord[], now: number): Snapshot {
  const snapshots: Record<string, ServiceSnapshot> = {};
  for (const service of services) snapshots[service.id] = serviceSnapshot(service);
  return { version: SNAPSHOT_VERSION, takenAt: now, services: snapshots };
}

/** A stored snapshot read back; undefined when it is missing, not JSON, or of another shape. */
export function parseSnapshot(json: string | null | undefined): Snapshot | undefined {
  if (!json) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  const parsed = SnapshotSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

export function serviceSnapshot(service: ServiceRecord): ServiceSnapshot {
  const snapshot: ServiceSnapshot = { name: service.name };
  // Only fields the record carries are written, so the JSON stays small and "unknown" stays absent.
  if (service.releaseChannel !== undefined) snapshot.releaseChannel = service.releaseChannel;
  if (service.endpoints !== undefined) snapshot.endpoints = enabledProtocols(service.endpoints);
  if (service.ipAccessList !== undefined) snapshot.ipAccessList = accessPairs(service.ipAccessList);
  if (service.privateEndpointIds !== undefined)
    snapshot.privateEndpointIds = [...new Set(service.privateEndpointIds)].sort();
  if (service.transparentDataEncryptionKeyId !== undefined) snapshot.tdeKeyId = service.transparentDataEncryptionKeyId;
  if (service.state !== undefined) snapshot.state = service.state;
  return snapshot;
}

const isSnapshotProtocol = (protocol: string): protocol is SnapshotProtocol =>
  (SNAPSHOT_PROTOCOLS as readonly string[]).includes(protocol);

/** A listed endpoint is on unless it says otherwise, as mysqlEnabled reads it. */
function enabledProtocols(endpoints: NonNullable<ServiceRecord['endpoints']>): SnapshotProtocol[] {
  const enabled = endpoints
    .filter((e) => e.enabled !== false)
    .map((e) => e.protocol)
    .filter(isSnapshotProtocol);
  return [...new Set(enabled)].sort();
}

/** Removal matches on source in the API, so a source appears once; the last entry wins. */
function accessPairs(entries: NonNullable<ServiceRecord['ipAccessList']>): Array<[string, string]> {
  const bySource = new Map(entries.map((e) => [e.source, e.description ?? ''] as const));
  return [...bySource.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
