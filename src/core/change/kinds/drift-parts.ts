/**
 * A kind's part of drift (core/summary): what a summary's snapshot keeps of it, what changed
 * between two snapshots, what an applied PATCH body did (so the bot's own changes are told apart),
 * and which activity types of the organization's log record it.
 */
import type { z } from 'zod';
import type { ServiceRecord, ServiceUpdate } from '../../service/schema.js';

/** One change between two snapshots of a service, in a kind's words. */
export interface DriftFinding {
  /** Names the change ("ip-added"); the kind's `activityTypes` say which log entries record it. */
  kind: string;
  /** The change requests' label for its field ("IP access"); DRIFT_OUTSIDE_BOT for what the bot never does. */
  label: string;
  /** Plain text for people (escaped where it is rendered). */
  text: string;
  /** The value it is about (IP source, endpoint id, new name), to match it to the request that did it. */
  subject: string;
  /** IP entries added or re-described: the description they have now. */
  ipDescription?: string;
}

/** One thing an applied PATCH body did: the finding a snapshot diff would show for it. */
export interface UpdateEffect {
  kind: string;
  subject: string;
  /** For IP entries added or re-described: the description the request set. */
  ipDescription?: string;
}

/** The label of a change no request of the bot can make (HTTPS switched off in the console). */
export const DRIFT_OUTSIDE_BOT = 'Service';

/** What a snapshot keeps (JSON, stored in Redis). */
export type SnapshotValue = z.infer<ReturnType<typeof z.json>>;

export interface KindDrift<T extends SnapshotValue = SnapshotValue> {
  /** Its key in a service's snapshot (absent: the record did not say), as stored (JSON). */
  key: string;
  schema: z.ZodType<T>;
  /** The value a record gives it; undefined when the record does not say. */
  read(service: ServiceRecord): T | undefined;
  /** What changed between two readings, both known. */
  diff(before: T, now: T): DriftFinding[];
  /** What an applied PATCH body did, as the findings it explains. */
  effects(update: ServiceUpdate): UpdateEffect[];
  /** The organization's activity types (the API's names) that record each finding kind it names. */
  activityTypes: Readonly<Record<string, readonly string[]>>;
  /** Whether an effect explains a finding of the same kind; absent: the same subject. */
  explains?(effect: UpdateEffect, finding: DriftFinding): boolean;
}

/**
 * Declares a kind's drift part with its value type checked, for the table that holds many. The
 * summary only ever passes `diff` values its `schema` parsed, so the narrower type holds.
 */
export function kindDrift<T extends SnapshotValue>(drift: KindDrift<T>): KindDrift {
  return drift;
}

/** The values added to and removed from a set between two readings. */
export function setChanges<T>(before: readonly T[], now: readonly T[]): { added: T[]; removed: T[] } {
  const was = new Set(before);
  const is = new Set(now);
  return { added: [...is].filter((v) => !was.has(v)), removed: [...was].filter((v) => !is.has(v)) };
}
