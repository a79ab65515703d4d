/**
 * A service's scaling schedule as `GET …/scalingSchedule` answers it (official OpenAPI document,
 * beta: `ScalingSchedule`): weekly windows of UTC hours with the scaling that applies inside each,
 * and the base configuration outside them. 404: none; 403: the organization lacks the feature.
 */
import { z } from 'zod';
import { lenient } from './lenient.js';

/** The document's two modes (schema.ts has the same list; importing it would close an import circle via parts.ts). */
const AUTOSCALING_MODES = ['vertical', 'horizontal'] as const;

/** The scaling an entry applies, and the base configuration outside every entry. */
const ScalingFields = {
  minReplicaMemoryGb: lenient(z.number()),
  maxReplicaMemoryGb: lenient(z.number()),
  numReplicas: lenient(z.number()),
  minReplicas: lenient(z.number()),
  maxReplicas: lenient(z.number()),
  idleScaling: lenient(z.boolean()),
  idleTimeoutMinutes: lenient(z.number()),
  autoscalingMode: lenient(z.enum(AUTOSCALING_MODES)),
};

export const ScheduleEntrySchema = z.looseObject({
  id: lenient(z.string()),
  name: z.string().catch(''),
  weekdays: z.array(z.number().int().min(0).max(6)).catch([]),
  startHourUtc: z.number().int().min(0).max(23),
  /** Exclusive; below the start it wraps past midnight. */
  endHourUtc: z.number().int().min(1).max(24),
  ...ScalingFields,
  isActiveNow: lenient(z.boolean()),
});
export type ScheduleEntry = z.infer<typeof ScheduleEntrySchema>;

export const ScalingScheduleSchema = z.looseObject({
  entries: z.array(ScheduleEntrySchema).catch([]),
  baseConfig: z.looseObject(ScalingFields).catch({}),
});
export type ScalingSchedule = z.infer<typeof ScalingScheduleSchema>;

type Scaling = ScalingSchedule['baseConfig'];

const Hour = (min: number, max: number) => z.number().int().min(min).max(max);

/**
 * One entry of POST …/scalingSchedule (official OpenAPI: `ScalingScheduleEntryRequest`); the bot
 * always sends a replica count as minReplicas = maxReplicas, as the API answers it.
 */
export const ScheduleEntryRequestSchema = z.strictObject({
  name: z.string().min(1),
  weekdays: z.array(Hour(0, 6)).min(1),
  startHourUtc: Hour(0, 23),
  endHourUtc: Hour(1, 24),
  autoscalingMode: z.enum(AUTOSCALING_MODES).optional(),
  minReplicaMemoryGb: z.number().optional(),
  maxReplicaMemoryGb: z.number().optional(),
  minReplicas: z.number().int().optional(),
  maxReplicas: z.number().int().optional(),
  idleScaling: z.boolean().optional(),
  idleTimeoutMinutes: z.number().int().optional(),
});
export type ScheduleEntryRequest = z.infer<typeof ScheduleEntryRequestSchema>;

/** POST …/scalingSchedule replaces the whole list (an empty one clears it). */
export const ScalingScheduleUpdateSchema = z.strictObject({ entries: z.array(ScheduleEntryRequestSchema) });
export type ScalingScheduleUpdate = z.infer<typeof ScalingScheduleUpdateSchema>;

/** An entry as the API answers it, as the request that would set it again (the list a change replaces). */
export function entryRequestOf(entry: ScheduleEntry): ScheduleEntryRequest {
  const replicas =
    entry.numReplicas !== undefined
      ? { minReplicas: entry.numReplicas, maxReplicas: entry.numReplicas }
      : { minReplicas: entry.minReplicas, maxReplicas: entry.maxReplicas };
  const request = {
    name: entry.name,
    weekdays: [...new Set(entry.weekdays)].sort((a, b) => a - b),
    startHourUtc: entry.startHourUtc,
    endHourUtc: entry.endHourUtc,
    autoscalingMode: entry.autoscalingMode,
    minReplicaMemoryGb: entry.minReplicaMemoryGb,
    maxReplicaMemoryGb: entry.maxReplicaMemoryGb,
    ...replicas,
    idleScaling: entry.idleScaling,
    idleTimeoutMinutes: entry.idleTimeoutMinutes,
  };
  return Object.fromEntries(Object.entries(request).filter(([, value]) => value !== undefined)) as ScheduleEntryRequest;
}

const range = (min: number | undefined, max: number | undefined) =>
  min === undefined || max === undefined ? undefined : min === max ? `${min}` : `${min}–${max}`;

/** "6 × 32 GB, idle off": replicas (a count or a range) times memory per replica, as far as stated. */
export function scalingText(scaling: Scaling): string {
  const replicas =
    scaling.numReplicas !== undefined ? `${scaling.numReplicas}` : range(scaling.minReplicas, scaling.maxReplicas);
  const memory = range(scaling.minReplicaMemoryGb, scaling.maxReplicaMemoryGb);
  const size = [replicas, memory === undefined ? undefined : `${memory} GB`]
    .filter((part) => part !== undefined)
    .join(' × ');
  const idle = scaling.idleScaling === undefined ? undefined : `idle ${scaling.idleScaling ? 'on' : 'off'}`;
  return [size || undefined, idle].filter((part) => part !== undefined).join(', ') || 'as configured';
}

/** A schedule's entries as requests (none: an empty list). */
export function entriesOf(schedule: ScalingSchedule | null): ScheduleEntryRequest[] {
  return (schedule?.entries ?? []).map(entryRequestOf);
}

/** Whether two lists of entries set the same schedule: entry by entry, field by field. */
export function sameEntries(a: readonly ScheduleEntryRequest[], b: readonly ScheduleEntryRequest[]): boolean {
  const canonical = (entries: readonly ScheduleEntryRequest[]) =>
    JSON.stringify(
      entries.map((entry) =>
        Object.fromEntries(Object.entries(entryRequestOf(entry)).sort(([x], [y]) => x.localeCompare(y))),
      ),
    );
  return canonical(a) === canonical(b);
}
