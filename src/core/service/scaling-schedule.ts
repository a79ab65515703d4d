/**
 * A service's scaling schedule as `GET …/scalingSchedule` answers it (official OpenAPI document,
 * beta: `ScalingSchedule`): weekly windows of UTC hours with the scaling that applies inside each,
 * and the base configuration outside them. 404: none; 403: the organization lacks the feature.
 */
import { z } from 'zod';
import { lenient } from './lenient.js';

/** The scaling an entry applies, and the base configuration outside every entry. */
const ScalingFields = {
  minReplicaMemoryGb: lenient(z.number()),
  maxReplicaMemoryGb: lenient(z.number()),
  numReplicas: lenient(z.number()),
  minReplicas: lenient(z.number()),
  maxReplicas: lenient(z.number()),
  idleScaling: lenient(z.boolean()),
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
