/**
 * Scaling schedules (official OpenAPI document, beta: `GET`/`POST`/`DELETE
 * …/services/{serviceId}/scalingSchedule`, `ScalingSchedulePostRequest`, `ScalingSchedule`), as
 * pure functions over plain records. A schedule is a list of entries, each a weekly window of UTC
 * hours with the scaling that applies inside it; outside every window the base configuration
 * (what replicaScaling set) applies. The entry in force shows in the service's
 * `currentScaling.effective*`; the base fields of the record never change.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { currentScalingOf, IDLE_TIMEOUT_MIN, Memory, REPLICAS_MIN, validate } from './capacity.js';
import type { Outcome, ServiceRecordLike } from './records.js';

// The document: the per-service replica maximum is "enforced when the entry is applied, not at
// request time", so a request only checks the minimum.
const Replicas = z
  .number({ error: 'must be number' })
  .int({ error: 'must be integer' })
  .min(REPLICAS_MIN, { error: `must be >= ${REPLICAS_MIN}` });
const Hour = (min: number, max: number) =>
  z
    .number({ error: 'must be number' })
    .int({ error: 'must be integer' })
    .min(min, { error: `must be >= ${min}` })
    .max(max, { error: `must be <= ${max}` });

const EntrySchema = z.strictObject({
  name: z.string({ error: 'must be string' }).min(1, { error: 'must NOT have fewer than 1 characters' }),
  weekdays: z.array(Hour(0, 6), { error: 'must be array' }).min(1, { error: 'must NOT have fewer than 1 items' }),
  startHourUtc: Hour(0, 23),
  endHourUtc: Hour(1, 24),
  autoscalingMode: z.enum(['vertical', 'horizontal'], { error: 'must be one of: vertical, horizontal' }).optional(),
  minReplicaMemoryGb: Memory.optional(),
  maxReplicaMemoryGb: Memory.optional(),
  numReplicas: Replicas.optional(),
  minReplicas: Replicas.optional(),
  maxReplicas: Replicas.optional(),
  idleScaling: z.boolean({ error: 'must be boolean' }).optional(),
  // Not documented: the minimum; replicaScaling's is the plausible one.
  idleTimeoutMinutes: Hour(IDLE_TIMEOUT_MIN, Number.MAX_SAFE_INTEGER).optional(),
});
type EntryRequest = z.infer<typeof EntrySchema>;

const ScheduleBodySchema = z.strictObject({ entries: z.array(EntrySchema, { error: 'must be array' }) });

export interface ScheduleEntry {
  id: string;
  name: string;
  weekdays: number[];
  startHourUtc: number;
  endHourUtc: number;
  autoscalingMode: 'vertical' | 'horizontal';
  minReplicaMemoryGb?: number;
  maxReplicaMemoryGb?: number;
  minReplicas?: number;
  maxReplicas?: number;
  idleScaling?: boolean;
  idleTimeoutMinutes?: number;
}

/** Rules across an entry's fields, in the document's words where it has them. */
function entryRefusal(entry: EntryRequest): string | undefined {
  if (entry.endHourUtc === entry.startHourUtc) return 'endHourUtc must differ from startHourUtc';
  if ((entry.minReplicaMemoryGb === undefined) !== (entry.maxReplicaMemoryGb === undefined))
    return 'minReplicaMemoryGb and maxReplicaMemoryGb must be provided together';
  if (entry.numReplicas !== undefined && (entry.minReplicas !== undefined || entry.maxReplicas !== undefined))
    return 'numReplicas is mutually exclusive with minReplicas/maxReplicas';
  if ((entry.minReplicas === undefined) !== (entry.maxReplicas === undefined))
    return 'minReplicas must be provided together with maxReplicas';
  // Not documented: a minimum above its maximum is refused, as replicaScaling refuses it.
  if (entry.minReplicas !== undefined && entry.maxReplicas !== undefined && entry.minReplicas > entry.maxReplicas)
    return 'minReplicas must not be greater than maxReplicas';
  const { minReplicaMemoryGb: minMemory, maxReplicaMemoryGb: maxMemory } = entry;
  if (minMemory !== undefined && maxMemory !== undefined && minMemory > maxMemory)
    return 'minReplicaMemoryGb must not be greater than maxReplicaMemoryGb';
  if (entry.autoscalingMode === 'horizontal') {
    if (minMemory === undefined || minMemory !== maxMemory)
      return 'a horizontal entry needs minReplicaMemoryGb equal to maxReplicaMemoryGb';
    if (entry.minReplicas === undefined) return 'a horizontal entry needs minReplicas and maxReplicas';
  } else if (entry.minReplicas !== entry.maxReplicas) {
    return 'a replica band (minReplicas below maxReplicas) needs autoscalingMode "horizontal"';
  }
  return undefined;
}

/** A stored entry: numReplicas becomes an equal band, as the document's response shows it. */
function toEntry(entry: EntryRequest): ScheduleEntry {
  const { numReplicas, autoscalingMode, ...rest } = entry;
  return {
    id: randomUUID(),
    ...rest,
    weekdays: [...new Set(entry.weekdays)].sort((a, b) => a - b),
    autoscalingMode: autoscalingMode ?? 'vertical',
    ...(numReplicas === undefined ? {} : { minReplicas: numReplicas, maxReplicas: numReplicas }),
  };
}

/** The entries a POST body describes (an empty list clears the schedule), or the API's 400 sentence. */
export function parseSchedule(body: unknown): Outcome<ScheduleEntry[]> {
  const parsed = validate(ScheduleBodySchema, body);
  if (!parsed.ok) return parsed;
  for (const [index, entry] of parsed.value.entries.entries()) {
    const refused = entryRefusal(entry);
    if (refused !== undefined) return { ok: false, message: `request body.entries[${index}]: '${refused}'` };
  }
  return { ok: true, value: parsed.value.entries.map(toEntry) };
}

/**
 * Whether the entry is in force at `now`: from startHourUtc (inclusive) to endHourUtc (exclusive)
 * on its weekdays; an end below the start runs past midnight into the next day.
 */
export function isActive(entry: ScheduleEntry, now: number): boolean {
  const date = new Date(now);
  const day = date.getUTCDay();
  const hour = date.getUTCHours();
  const on = (weekday: number): boolean => entry.weekdays.includes(weekday);
  if (entry.startHourUtc < entry.endHourUtc) return on(day) && hour >= entry.startHourUtc && hour < entry.endHourUtc;
  return (on(day) && hour >= entry.startHourUtc) || (on((day + 6) % 7) && hour < entry.endHourUtc);
}

/** Not documented: which of overlapping entries wins; here the first in the list. */
export const activeEntry = (entries: readonly ScheduleEntry[], now: number): ScheduleEntry | undefined =>
  entries.find((entry) => isActive(entry, now));

/** `currentScaling` with the entry in force: its values over the base configuration's. */
export function scheduledScaling(record: ServiceRecordLike, entry: ScheduleEntry | undefined): Record<string, unknown> {
  const base = currentScalingOf(record);
  if (entry === undefined) return base;
  const overrides: Record<string, unknown> = {
    effectiveAutoscalingMode: entry.autoscalingMode,
    effectiveMinReplicaMemoryGb: entry.minReplicaMemoryGb,
    effectiveMaxReplicaMemoryGb: entry.maxReplicaMemoryGb,
    effectiveMinReplicas: entry.minReplicas,
    effectiveMaxReplicas: entry.maxReplicas,
    effectiveIdleScaling: entry.idleScaling,
    effectiveIdleTimeoutMinutes: entry.idleTimeoutMinutes,
  };
  const set = Object.entries(overrides).filter(([, value]) => value !== undefined);
  // The document: "ID of the schedule entry whose values are currently applied to the service".
  return { ...base, ...Object.fromEntries(set), activeEntryId: entry.id };
}

/** `baseConfig`: what applies when no entry is active, read from the record's base fields. */
function baseConfigOf(record: ServiceRecordLike): Record<string, unknown> {
  const base = currentScalingOf(record);
  const renamed = Object.entries(base).map(([key, value]): [string, unknown] => {
    const field = key.replace(/^effective/, '');
    return [`${field.charAt(0).toLowerCase()}${field.slice(1)}`, value];
  });
  return Object.fromEntries(renamed);
}

/** The `ScalingSchedule` the API answers with; an empty schedule has an empty baseConfig (the document). */
export function scheduleView(record: ServiceRecordLike, entries: readonly ScheduleEntry[], now: number): unknown {
  const active = activeEntry(entries, now);
  return {
    entries: entries.map((entry) => ({ ...entry, isActiveNow: entry === active })),
    baseConfig: entries.length === 0 ? {} : baseConfigOf(record),
    ...(active === undefined ? {} : { activeEntryId: active.id }),
  };
}
