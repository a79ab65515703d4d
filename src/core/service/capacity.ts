/**
 * Replicas and memory of a service as the official API document defines them. The deprecated
 * `minTotalMemoryGb`/`maxTotalMemoryGb` always describe three workers, so they are wrong for any
 * other replica count: they are never read here. Total memory is per-replica memory x replicas.
 */
import type { ServiceRecord } from './schema.js';

export interface Range {
  min: number;
  max: number;
}

export interface Capacity {
  /** `vertical` or `horizontal` as the record says; undefined when it does not say. */
  mode: string | undefined;
  replicas: Range | undefined;
  /** Memory of one replica (a range under vertical autoscaling, one figure under horizontal). */
  replicaMemoryGb: Range | undefined;
  /** Per-replica memory x replicas; undefined unless both are known. */
  totalMemoryGb: Range | undefined;
}

export function rangeOf(min: number | undefined, max: number | undefined): Range | undefined {
  if (min === undefined && max === undefined) return undefined;
  return { min: min ?? max ?? 0, max: max ?? min ?? 0 };
}

const exactly = (value: number | undefined): Range | undefined => rangeOf(value, value);

function capacity(mode: string | undefined, replicas: Range | undefined, replicaMemoryGb: Range | undefined): Capacity {
  const totalMemoryGb =
    replicas === undefined || replicaMemoryGb === undefined
      ? undefined
      : { min: replicas.min * replicaMemoryGb.min, max: replicas.max * replicaMemoryGb.max };
  return { mode, replicas, replicaMemoryGb, totalMemoryGb };
}

/**
 * The configured capacity. `numReplicas` appears only under vertical autoscaling; horizontal
 * services give `minReplicas`..`maxReplicas`, and may give `replicaMemoryGb` instead of the
 * per-replica range.
 */
export function baselineCapacity(s: ServiceRecord): Capacity {
  const horizontal =
    s.autoscalingMode === 'horizontal' || (s.numReplicas === undefined && s.autoscalingMode !== 'vertical');
  const counted = exactly(s.numReplicas);
  const ranged = rangeOf(s.minReplicas, s.maxReplicas);
  const replicas = horizontal ? (ranged ?? counted) : (counted ?? ranged);
  const replicaMemoryGb = rangeOf(s.minReplicaMemoryGb, s.maxReplicaMemoryGb) ?? exactly(s.replicaMemoryGb);
  return capacity(s.autoscalingMode, replicas, replicaMemoryGb);
}

/**
 * What runs right now, when a scaling schedule entry makes it differ from the baseline; undefined
 * when the record has no `currentScaling` or it says the same as the baseline.
 */
export function currentCapacity(s: ServiceRecord): Capacity | undefined {
  const now = s.currentScaling;
  if (now === undefined) return undefined;
  const baseline = baselineCapacity(s);
  const current = capacity(
    now.effectiveAutoscalingMode ?? baseline.mode,
    rangeOf(now.effectiveMinReplicas, now.effectiveMaxReplicas) ?? baseline.replicas,
    rangeOf(now.effectiveMinReplicaMemoryGb, now.effectiveMaxReplicaMemoryGb) ?? baseline.replicaMemoryGb,
  );
  const same =
    sameRange(current.replicas, baseline.replicas) &&
    sameRange(current.replicaMemoryGb, baseline.replicaMemoryGb) &&
    current.mode === baseline.mode;
  return same ? undefined : current;
}

/** The capacity in force now: the current scaling when one is active, else the baseline. */
export function effectiveCapacity(s: ServiceRecord): Capacity {
  return currentCapacity(s) ?? baselineCapacity(s);
}

function sameRange(a: Range | undefined, b: Range | undefined): boolean {
  return a?.min === b?.min && a?.max === b?.max;
}

// ---------------------------------------------------------------------------------------------
// Text (plain: every part is a number, so nothing needs escaping)

const numberFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

/** "8", "8–32" */
export function rangeText(range: Range): string {
  const min = numberFormat.format(range.min);
  return range.min === range.max ? min : `${min}–${numberFormat.format(range.max)}`;
}

const replicaNoun = (range: Range) => (range.min === 1 && range.max === 1 ? 'replica' : 'replicas');

/** "3 × 8–32 GB", "2–6 × 16 GB", "3 replicas", "8–32 GB per replica"; undefined when nothing is known. */
export function capacityText(c: Capacity): string | undefined {
  if (c.replicas !== undefined && c.replicaMemoryGb !== undefined) {
    return `${rangeText(c.replicas)} × ${rangeText(c.replicaMemoryGb)} GB`;
  }
  if (c.replicas !== undefined) return `${rangeText(c.replicas)} ${replicaNoun(c.replicas)}`;
  if (c.replicaMemoryGb !== undefined) return `${rangeText(c.replicaMemoryGb)} GB per replica`;
  return undefined;
}

/** "24–96 GB in total", when replicas and per-replica memory are both known. */
export function totalMemoryText(c: Capacity): string | undefined {
  return c.totalMemoryGb === undefined ? undefined : `${rangeText(c.totalMemoryGb)} GB in total`;
}

/**
 * One phrase for lists and summaries: the baseline, or both when a scaling schedule is active
 * ("now 2 × 16 GB, base 3 × 8–32 GB"). A schedule's entry taking effect changes only "now".
 */
export function capacityPhrase(s: ServiceRecord): string | undefined {
  const baseline = capacityText(baselineCapacity(s));
  const current = currentCapacity(s);
  if (current === undefined) return baseline;
  const now = capacityText(current) ?? 'unknown';
  return baseline === undefined ? `now ${now}` : `now ${now}, base ${baseline}`;
}
