/**
 * Capacity and power requests checked against the service they are for, before anything is
 * posted: replicas (a count, or a range for horizontal autoscaling), memory per replica (a size,
 * or a range for vertical autoscaling), idle scaling and its timeout, and stop/start/wake. The
 * answer is either the exact request to send (a PATCH …/replicaScaling body or a PATCH …/state
 * command) with the values it replaces and the values it sets, or every problem found, each a
 * sentence for people. Pure: no I/O, no clock.
 *
 * Rules: the official document's bounds (core/service/schema.ts), plus what it leaves unsaid but is
 * plainly wrong (a minimum above its maximum, stopping a stopped service). Anything subtler is
 * left to the API, whose 400 text the bot passes on.
 */
import {
  BYOC_REPLICA_MEMORY_GB,
  IDLE_TIMEOUT_MIN_MINUTES,
  isReplicaCount,
  isReplicaMemoryGb,
  REPLICA_MEMORY_MAX_GB,
  REPLICA_MEMORY_MIN_GB,
  REPLICA_MEMORY_STEP_GB,
  REPLICAS_MAX,
  REPLICAS_MIN,
  ReplicaScalingUpdateSchema,
  type ReplicaScalingUpdate,
  type ServiceRecord,
  type StateCommand,
} from '../service/schema.js';
import { isDeletedState, stateInfo } from '../service/states.js';
import { capacityValuesOf, fieldsOf, scalingModeOf, type CapacityValues } from './values.js';

// ---------------------------------------------------------------------------------------------
// What people ask for

export type PowerAction = 'stop' | 'start' | 'wake';

export type CapacityTarget =
  /** `replicas N` is min = max = N; `replicas MIN-MAX` a range (horizontal autoscaling only). */
  | { kind: 'replicas'; min: number; max: number }
  /** Per replica: `memory GB` is min = max; `memory MIN-MAX` a range (vertical autoscaling only). */
  | { kind: 'memory'; minGb: number; maxGb: number }
  /**
   * `idle SERVICE on [after 15m]`: the timeout is kept as it is when not given. Off may carry one
   * too: a revert restores the timeout the change replaced.
   */
  | { kind: 'idle'; enabled: boolean; timeoutMinutes?: number }
  | { kind: 'power'; action: PowerAction };

/** The API call a change makes. */
export type CapacityOperation =
  { kind: 'replicaScaling'; body: ReplicaScalingUpdate } | { kind: 'state'; command: StateCommand };

export interface CapacityChange {
  target: CapacityTarget;
  operation: CapacityOperation;
  /**
   * The values the change replaces, as the service showed them: what the stale check compares
   * before applying, and what a revert restores. A field the record did not show is absent.
   */
  before: CapacityValues;
  /**
   * The values the change sets (for power, the state it settles in): what a revert expects the
   * service still to show before it undoes anything.
   */
  after: CapacityValues;
}

/**
 * `unchanged`: the only problem is that the service already shows the values asked for (a
 * prefilled modal field left as it was is no problem at all; a command alone is refused with it).
 */
export type CapacityPlan = { ok: true; change: CapacityChange } | { ok: false; problems: string[]; unchanged?: true };

/** The API's word for each power action. */
export const STATE_COMMAND_OF: Record<PowerAction, StateCommand> = { stop: 'stop', start: 'start', wake: 'awake' };

// ---------------------------------------------------------------------------------------------
// Helpers for sentences

const nameOf = (service: ServiceRecord): string => service.name || service.id;

/** The service as a command argument: quoted when it has spaces. */
const argumentOf = (service: ServiceRecord): string => {
  const name = nameOf(service);
  return /\s/.test(name) ? `"${name}"` : name;
};

const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;

const unique = (values: readonly number[]): number[] => [...new Set(values)];

/** "48, 116, 172 or 232" */
const orList = (values: readonly number[]): string =>
  values.length < 2 ? values.join('') : `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;

/** Development services are held to fixed memory (official document); an absent tier is production. */
const isDevelopment = (service: ServiceRecord): boolean => service.tier === 'development';

// ---------------------------------------------------------------------------------------------
// Replicas

function planReplicas(service: ServiceRecord, min: number, max: number): CapacityPlan {
  const problems = replicaCountProblems(min, max);
  const mode = scalingModeOf(service);
  const name = nameOf(service);
  if (mode === undefined) {
    problems.push(`${name} does not say whether it scales vertically or horizontally, so its replicas cannot be set.`);
  } else if (mode === 'vertical' && min !== max) {
    problems.push(
      `${name} scales vertically: a replica range needs horizontal autoscaling; ask for a fixed count like replicas ${max}.`,
    );
  }
  if (service.isPrimary === true && !isDevelopment(service) && Math.min(min, max) < 2) {
    problems.push(`${name} is the first service of its warehouse: it needs at least 2 replicas.`);
  }
  if (problems.length > 0 || mode === undefined) return { ok: false, problems };

  const body: ReplicaScalingUpdate =
    mode === 'vertical' ? { numReplicas: min } : { minReplicas: min, maxReplicas: max };
  const after: CapacityValues = { ...body };
  const before = capacityValuesOf(service, fieldsOf(after));
  if (sameValues(before, after)) {
    const what = min === max ? plural(min, 'replica') : `between ${min} and ${max} replicas`;
    return { ok: false, problems: [`${name} already runs ${what}.`], unchanged: true };
  }
  return scalingChange(service, { kind: 'replicas', min, max }, body, before, after);
}

// ---------------------------------------------------------------------------------------------
// Memory per replica

function planMemory(service: ServiceRecord, minGb: number, maxGb: number): CapacityPlan {
  const problems = memorySizeProblems(service, minGb, maxGb);
  const name = nameOf(service);
  if (isDevelopment(service)) {
    problems.push(`${name} is a development service: memory per replica can be changed only on production services.`);
  }
  const mode = scalingModeOf(service);
  if (mode === 'horizontal' && minGb !== maxGb) {
    problems.push(
      `${name} scales horizontally: every replica has the same memory; ask for one size like memory ${maxGb}.`,
    );
  }
  if (problems.length > 0) return { ok: false, problems };

  const body: ReplicaScalingUpdate = { minReplicaMemoryGb: minGb, maxReplicaMemoryGb: maxGb };
  const after: CapacityValues = { ...body };
  const before = capacityValuesOf(service, fieldsOf(after));
  if (sameValues(before, after)) {
    const what = minGb === maxGb ? `${minGb} GB` : `${minGb}–${maxGb} GB`;
    return { ok: false, problems: [`${name} already has ${what} per replica.`], unchanged: true };
  }
  return scalingChange(service, { kind: 'memory', minGb, maxGb }, body, before, after);
}

// ---------------------------------------------------------------------------------------------
// Idle scaling

function planIdle(service: ServiceRecord, target: Extract<CapacityTarget, { kind: 'idle' }>): CapacityPlan {
  const name = nameOf(service);
  const timeout = target.timeoutMinutes;
  // Checked first, on or off: the modal can send a new timeout with idle scaling left off.
  const timeoutProblem = idleTimeoutProblem(timeout);
  if (timeoutProblem !== undefined) return { ok: false, problems: [timeoutProblem] };
  if (!target.enabled) {
    const body: ReplicaScalingUpdate =
      timeout === undefined ? { idleScaling: false } : { idleScaling: false, idleTimeoutMinutes: timeout };
    const before = capacityValuesOf(service, fieldsOf(body));
    if (sameValues(before, body))
      return { ok: false, problems: [`${name} already has idle scaling off.`], unchanged: true };
    return scalingChange(service, target, body, before, { ...body });
  }
  const body: ReplicaScalingUpdate =
    timeout === undefined ? { idleScaling: true } : { idleScaling: true, idleTimeoutMinutes: timeout };
  const after: CapacityValues = { ...body };
  const before = capacityValuesOf(service, fieldsOf(after));
  if (sameValues(before, after)) {
    const current = service.idleTimeoutMinutes;
    const what = current === undefined ? 'has idle scaling on' : `idles after ${plural(current, 'minute')}`;
    return { ok: false, problems: [`${name} already ${what}.`], unchanged: true };
  }
  return scalingChange(service, target, body, before, after);
}

// ---------------------------------------------------------------------------------------------
// Power

/** The states each action starts from; the record's state decides, and an absent one is left to the API. */
const POWER_FROM: Record<PowerAction, readonly string[]> = {
  stop: ['running', 'idle', 'degraded', 'partially_running'],
  start: ['stopped'],
  wake: ['idle'],
};

/** Where each action leaves the service once it settles. */
const POWER_TO: Record<PowerAction, string> = { stop: 'stopped', start: 'running', wake: 'running' };

function powerRefusal(service: ServiceRecord, action: PowerAction, state: string): string {
  const name = nameOf(service);
  const label = stateInfo(state).label;
  const argument = argumentOf(service);
  const already: Record<PowerAction, Partial<Record<string, string>>> = {
    stop: { stopped: 'stopped', stopping: 'stopping' },
    start: { running: 'running', starting: 'starting', awaking: 'waking up' },
    wake: { running: 'running', awaking: 'waking up', starting: 'starting' },
  };
  const now = already[action][state];
  if (now !== undefined) return `${name} is already ${now}.`;
  if (action === 'start' && state === 'idle') {
    return `${name} is idle, not stopped: ask for wake ${argument} instead.`;
  }
  if (action === 'wake' && state === 'stopped') {
    return `${name} is stopped, not idle: ask for start ${argument} instead.`;
  }
  if (action === 'start' && state === 'stopping') return `${name} is stopping: start it once it has stopped.`;
  if (action === 'stop' && (state === 'starting' || state === 'awaking' || state === 'provisioning')) {
    return `${name} is ${label}: stop it once it is running.`;
  }
  const needed: Record<PowerAction, string> = {
    stop: 'a running or idle service can be stopped',
    start: 'a stopped service can be started',
    wake: 'an idle service can be woken',
  };
  return `${name} is ${label}: only ${needed[action]}.`;
}

function planPower(service: ServiceRecord, action: PowerAction): CapacityPlan {
  const state = service.state;
  if (state !== undefined && !POWER_FROM[action].includes(state)) {
    return { ok: false, problems: [powerRefusal(service, action, state)] };
  }
  return {
    ok: true,
    change: {
      target: { kind: 'power', action },
      operation: { kind: 'state', command: STATE_COMMAND_OF[action] },
      before: state === undefined ? {} : { state },
      after: { state: POWER_TO[action] },
    },
  };
}

// ---------------------------------------------------------------------------------------------

function sameValues(before: CapacityValues, after: CapacityValues): boolean {
  return fieldsOf(after).every((field) => before[field] === after[field]);
}

/** A replicaScaling change, its body parsed by the same schema the client sends it through. */
function scalingChange(
  service: ServiceRecord,
  target: CapacityTarget,
  body: ReplicaScalingUpdate,
  before: CapacityValues,
  after: CapacityValues,
): CapacityPlan {
  const parsed = ReplicaScalingUpdateSchema.safeParse(body);
  if (!parsed.success) {
    // Unreachable when the checks above are right; a sentence all the same.
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
    return {
      ok: false,
      problems: [`The change for ${nameOf(service)} breaks the API's rules: ${problems.join('; ')}.`],
    };
  }
  return { ok: true, change: { target, operation: { kind: 'replicaScaling', body: parsed.data }, before, after } };
}

/**
 * The request to send for `target` on `service`, or every problem with it as sentences. A deleted
 * service takes no change at all.
 */
export function planCapacityChange(service: ServiceRecord, target: CapacityTarget): CapacityPlan {
  if (isDeletedState(service.state)) {
    return { ok: false, problems: [`${nameOf(service)} has been deleted: it takes no changes.`] };
  }
  switch (target.kind) {
    case 'replicas':
      return planReplicas(service, target.min, target.max);
    case 'memory':
      return planMemory(service, target.minGb, target.maxGb);
    case 'idle':
      return planIdle(service, target);
    case 'power':
      return planPower(service, target.action);
  }
}

// ---------------------------------------------------------------------------------------------
// The bounds of each value, alone (also what a scaling schedule's entries are checked against)

/** Replicas: each a whole number within the API's bounds, the smaller first. */
export function replicaCountProblems(min: number, max: number): string[] {
  const problems: string[] = [];
  for (const value of unique([min, max])) {
    if (!isReplicaCount(value)) {
      problems.push(`Replicas must be a whole number from ${REPLICAS_MIN} to ${REPLICAS_MAX}; ${value} is not.`);
    }
  }
  if (min > max) {
    problems.push(
      `A replica range runs from the smaller number to the larger: write ${max}-${min}, not ${min}-${max}.`,
    );
  }
  return problems;
}

/** Memory per replica: the API's sizes (BYOC's own list), the smaller first. */
export function memorySizeProblems(service: ServiceRecord, minGb: number, maxGb: number): string[] {
  const problems: string[] = [];
  const name = nameOf(service);
  const byoc = service.byocId !== undefined;
  for (const value of unique([minGb, maxGb])) {
    if (byoc && !(BYOC_REPLICA_MEMORY_GB as readonly number[]).includes(value)) {
      problems.push(
        `${name} runs in your own cloud account (BYOC): memory per replica must be ${orList(BYOC_REPLICA_MEMORY_GB)} GB; ${value} is not.`,
      );
    } else if (!byoc && !isReplicaMemoryGb(value)) {
      problems.push(
        `Memory per replica must be a multiple of ${REPLICA_MEMORY_STEP_GB} between ${REPLICA_MEMORY_MIN_GB} and ${REPLICA_MEMORY_MAX_GB} GB; ${value} is not.`,
      );
    }
  }
  if (minGb > maxGb) {
    problems.push(
      `A memory range runs from the smaller size to the larger: write ${maxGb}-${minGb}, not ${minGb}-${maxGb}.`,
    );
  }
  return problems;
}

/** The idle timeout: whole minutes, at least the API's minimum (absent: kept as it is). */
export function idleTimeoutProblem(timeout: number | undefined): string | undefined {
  if (timeout === undefined || (Number.isInteger(timeout) && timeout >= IDLE_TIMEOUT_MIN_MINUTES)) return undefined;
  return `The idle timeout must be a whole number of minutes, at least ${IDLE_TIMEOUT_MIN_MINUTES}; ${timeout} is not.`;
}
