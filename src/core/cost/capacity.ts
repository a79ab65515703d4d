/**
 * What a capacity change may do to spend: the service's compute credits per day over the last 7
 * days, and an estimate of the change that rests on one stated assumption: compute credits are
 * proportional to total memory (per-replica memory × replicas, mid-range for ranges) for the same
 * hours running. Idle scaling changes the hours, which nothing here can foresee: that is said
 * instead of guessed.
 */
import type { ChangeIntent } from '../change/types.js';
import { baselineCapacity, type Range } from '../service/capacity.js';
import type { ServiceRecord } from '../service/schema.js';
import { attribute } from './attribution.js';
import { daysOf, type Day, type DayRange } from './period.js';
import type { CostRow } from './schema.js';

export interface ComputeDay {
  date: Day;
  compute: number;
}

export type SpendEstimate =
  | { kind: 'memory'; beforeGb: number; afterGb: number; dailyBefore: number; dailyAfter: number }
  | { kind: 'hours'; enabled: boolean }
  | { kind: 'none' };

/** Whether a change asks for capacity (replicas, memory, idle scaling): its request shows spend. */
export function isCapacityIntent(intent: ChangeIntent): boolean {
  return intent.replicas !== undefined || intent.replicaMemoryGb !== undefined || intent.idleScaling !== undefined;
}

/** The service's compute credits per day of the range (0 for a day without a row). */
export function computeByDay(rows: readonly CostRow[], serviceId: string, range: DayRange): ComputeDay[] {
  const byDay = new Map<Day, number>();
  for (const day of attribute(rows)) {
    if (day.id === serviceId) byDay.set(day.date, (byDay.get(day.date) ?? 0) + day.kinds.compute);
  }
  return daysOf(range).map((date) => ({ date, compute: byDay.get(date) ?? 0 }));
}

const middle = (range: Range) => (range.min + range.max) / 2;

export function estimateSpend(
  service: ServiceRecord,
  intent: ChangeIntent,
  days: readonly ComputeDay[],
): SpendEstimate {
  if (intent.idleScaling !== undefined && intent.replicas === undefined && intent.replicaMemoryGb === undefined) {
    return { kind: 'hours', enabled: intent.idleScaling.enabled };
  }
  const before = baselineCapacity(service);
  const replicas = intent.replicas ?? before.replicas;
  const memory = intent.replicaMemoryGb ?? before.replicaMemoryGb;
  if (!before.totalMemoryGb || !replicas || !memory) return { kind: 'none' };
  const beforeGb = middle(before.totalMemoryGb);
  const afterGb = middle(replicas) * middle(memory);
  if (beforeGb <= 0 || days.length === 0) return { kind: 'none' };
  const dailyBefore = days.reduce((sum, day) => sum + day.compute, 0) / days.length;
  return { kind: 'memory', beforeGb, afterGb, dailyBefore, dailyAfter: (dailyBefore * afterGb) / beforeGb };
}
