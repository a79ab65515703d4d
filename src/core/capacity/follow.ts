/**
 * Following a change after the API accepted it: where the service is on its way (a stop passes
 * through `stopping` before `stopped`), and when to read it again. The document lists no states
 * for these transitions; the official Terraform provider reads every 5 s for up to 10 minutes
 * after a stop. Pure: the caller reads (within the shared rate limit) and sleeps.
 */
import type { Operation } from '../change/types.js';
import type { ServiceRecord } from '../service/schema.js';
import { capacityDifferences, fieldsOf, type CapacityDifference, type CapacityValues } from './values.js';

export type Progress =
  /** The service shows what the change set: done. */
  | { kind: 'settled'; state: string | undefined }
  /**
   * On its way: a passing state, or a scaling not yet visible (`missing`: the values it does not
   * show yet, empty while the state is what is still moving).
   */
  | { kind: 'moving'; state: string | undefined; missing: CapacityDifference[] }
  /**
   * Somewhere the change does not lead (failed, stopped again by hand...), or gone (`gone`: the
   * organization no longer has the service): stop following and say so.
   */
  | { kind: 'elsewhere'; state: string | undefined; gone?: true };

/** The passing states on the way to each settled state. */
/** What a delete is followed to: the organization no longer lists the service. */
export const DELETED = 'deleted';

const ON_THE_WAY: Record<string, readonly string[]> = {
  stopped: ['stopping'],
  running: ['starting', 'awaking', 'provisioning'],
  [DELETED]: ['terminating'],
};

/**
 * What a request's operations leave the service showing once done: the `expect` values of its
 * replicaScaling and state operations, a later one over an earlier one. Undefined when it has
 * none: a basic-details update shows at once in the record the API answers, so there is nothing
 * to follow.
 */
export function followTarget(operations: readonly Operation[]): CapacityValues | undefined {
  let target: CapacityValues | undefined;
  for (const operation of operations) {
    if (operation.endpoint === 'delete') target = { state: DELETED };
    if (operation.endpoint !== 'replicaScaling' && operation.endpoint !== 'state') continue;
    target = { ...target, ...operation.expect };
  }
  return target;
}

/**
 * Where the service is, for the values a change leads to (a request's `followTarget`, or a
 * capacity change's `after`); `undefined` for a service the organization no longer has.
 */
export function progressOf(target: CapacityValues, service: ServiceRecord | undefined): Progress {
  // A service deleted on purpose is where it was meant to be once it is gone.
  if (!service)
    return target.state === DELETED
      ? { kind: 'settled', state: DELETED }
      : { kind: 'elsewhere', state: undefined, gone: true };
  const state = service.state;
  const wanted = target.state;
  if (wanted !== undefined && state !== wanted) {
    if (state === undefined || (ON_THE_WAY[wanted] ?? []).includes(state))
      return { kind: 'moving', state, missing: [] };
    // Woken or started, then idle again by itself: it did start. Scaling values are not judged
    // on an idle service: it shows them again once it runs.
    if (wanted === 'running' && state === 'idle') return { kind: 'settled', state };
    return { kind: 'elsewhere', state };
  }
  const scaling = { ...target };
  delete scaling.state;
  if (fieldsOf(scaling).length === 0) return { kind: 'settled', state };
  // Scaling has no passing state of its own that the document names: it is done when the
  // record shows every value (a change by hand meanwhile shows as never settling, not as done).
  const missing = capacityDifferences(service, scaling);
  return missing.length === 0 ? { kind: 'settled', state } : { kind: 'moving', state, missing };
}

/** Whether two readings would be said in the same words: only a change is worth a message update. */
export function sameProgress(a: Progress | undefined, b: Progress | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.kind !== b.kind || a.state !== b.state) return false;
  if (a.kind !== 'moving' || b.kind !== 'moving') return true;
  const key = (p: typeof a) => JSON.stringify(p.missing.map((m) => [m.field, m.actual]));
  return key(a) === key(b);
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

/** The planned reads as times after acceptance (the delays added up), earliest first. */
export function followReadTimes(schedule: FollowSchedule = DEFAULT_FOLLOW): number[] {
  let at = 0;
  return followDelays(schedule).map((wait) => (at += wait));
}
