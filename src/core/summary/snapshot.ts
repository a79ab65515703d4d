/**
 * The compact state of services that drift is computed from. It is stored as JSON (in Redis) for
 * every schedule, for organizations of thousands of services, so it keeps only what drift
 * compares, omits what a record did not say, and stores IP entries as [source, description] pairs.
 */
import { z } from 'zod';
import { KIND_LIST } from '../change/kinds/index.js';
import type { ServiceRecord } from '../service/schema.js';
import { KeysSectionSchema, type KeysSection } from './key-drift.js';

/** Bumped when the stored shape changes: an older snapshot then fails to parse and is no baseline. */
export const SNAPSHOT_VERSION = 1;

/** The kinds drift is computed for, each with its own key in a service's snapshot. */
export const DRIFT_PARTS = KIND_LIST.flatMap((kind) => (kind.drift === undefined ? [] : [kind.drift]));

/**
 * A service's snapshot: its name and state, and each kind's value under the kind's key
 * (kinds/drift-parts.ts). An absent key means "the record did not say", which is not the same as
 * empty: drift is only computed where both snapshots know the value (and it parses as the kind's),
 * so a record missing a field never reads as "every IP entry removed".
 */
export const ServiceSnapshotSchema = z.object({ name: z.string(), state: z.string().optional() }).catchall(z.json());
export type ServiceSnapshot = z.infer<typeof ServiceSnapshotSchema>;

export const SnapshotSchema = z.object({
  version: z.literal(SNAPSHOT_VERSION),
  takenAt: z.number(),
  services: z.record(z.string(), ServiceSnapshotSchema),
  /**
   * The organization's API keys (key-drift.ts), a section of their own: absent in snapshots stored
   * before it and when keys were never read; one that does not parse is dropped, not the snapshot.
   */
  keys: KeysSectionSchema.optional().catch(undefined),
});
export type Snapshot = z.infer<typeof SnapshotSchema>;

export function takeSnapshot(services: readonly ServiceRecord[], now: number, keys?: KeysSection): Snapshot {
  const snapshots: Record<string, ServiceSnapshot> = {};
  for (const service of services) snapshots[service.id] = serviceSnapshot(service);
  const snapshot: Snapshot = { version: SNAPSHOT_VERSION, takenAt: now, services: snapshots };
  return keys === undefined ? snapshot : { ...snapshot, keys };
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
  // Only values the record carries are written, so the JSON stays small and "unknown" stays absent.
  for (const drift of DRIFT_PARTS) {
    const value = drift.read(service);
    if (value !== undefined) snapshot[drift.key] = drift.schema.parse(value);
  }
  if (service.state !== undefined) snapshot.state = service.state;
  return snapshot;
}
