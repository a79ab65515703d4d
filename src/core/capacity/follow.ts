/**
 * Following a change after the API accepted it: where the service is on its way (a stop passes
 * through `stopping` before `stopped`), and when to read it again. The document lists no states
 * for these transitions; the official Terraform provider reads every 5 s for up to 10 minutes
 * after a stop. Pure: the caller reads (within the shared rate limit) and sleeps.
 */
import type { ServiceRecord } from '../service/schema.js';
import type { CapacityChange } from './plan.js';
import { capacityDifferences, fieldsOf } from './values.js';

export type Progress =
  /** The service shows what the change set: done. */
  | { kind: 'settled'; state: string | undefined }
  /** On its way: a passing state, or a scaling not yet visible. */
  | { kind: 'moving'; state: string | undefined }
  /** Somewhere the change does not lead (failed, stopped again by hand...): stop following and say so. */
  | { kind: 'elsewhere'; state: string | undefined };

/** The passing states on the way to each settled state. */
const ON_THE_WAY: Record<string, readonly string[]> = {
  stopped: ['stopping'],
  running: ['starting', 'awaking', 'provisioning'],
};

/** Where the service is, for the change it was given. */
export function progressOf(change: CapacityChange, service: ServiceRecord): Progress {
  const state = service.state;
  const target = change.after.state;
  if (target !== undefined) {
    if (state === target) return { kind: 'settled', state };
    if (state === undefined || (ON_THE_WAY[target] ?? []).includes(state)) return { kind: 'moving', state };
    // Woken or started, then idle again by itself: it did start.
    if (target === 'running' && state === 'idle') return { kind: 'settled', state };
    return { kind: 'elsewhere', state };
  }
  const scaling = { ...change.after };
  delete scaling.state;
  if (fieldsOf(scaling).length === 0) return { kind: 'settled', state };
  return capacityDifferences(service, scaling).length === 0 ? { kind: 'settled', state } : { kind: 'moving', state };
}

export interface FollowSchedule {
  /** Before the first read after the API accepted. */
  firstMs: number;
  /** Each wait is the last one times this, up to `maxMs`. */
  factor: number;
  maxMs: number;
  /** No read is planned past this much time after acceptance. */
  totalMs: number;
}

/** Like the Terraform provider's 5 s over 10 minutes, starting sooner (the demo's stop takes seconds). */
export const DEFAULT_FOLLOW: FollowSchedule = { firstMs: 2_000, factor: 1.5, maxMs: 30_000, totalMs: 10 * 60_000 };

/**
 * The waits between reads, in order: bounded in number and in total time, so the caller knows up
 * front how many reads following a change can cost, and when to say "still moving after N minutes".
 */
export function followDelays(schedule: FollowSchedule = DEFAULT_FOLLOW): number[] {
  const delays: number[] = [];
  let wait = Math.max(1, schedule.firstMs);
  let elapsed = 0;
  while (elapsed + wait <= schedule.totalMs) {
    delays.push(wait);
    elapsed += wait;
    wait = Math.min(schedule.maxMs, Math.max(1, Math.round(wait * schedule.factor)));
  }
  return delays;
}
