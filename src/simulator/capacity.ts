/**
 * The simulator's rules for PATCH …/replicaScaling and PATCH …/state, as pure functions over plain
 * records (state.ts keeps the organization, server.ts the HTTP). They follow the official document
 * (shared/spec/api-facts.md, "Capacity, power, activities"); where it says nothing (min above max,
 * the states a service passes through, a command that does not fit the state) the behaviour here
 * is a plausible guess, marked as such, so the bot is tested against something sensible rather
 * than against the real API's exact words.
 */
import { z } from 'zod';
import type { Outcome, ServiceRecordLike } from './records.js';

// Bounds of the official document, restated here rather than imported from the bot's core: the
// simulator stands for the API, and should not agree with the bot merely by sharing its code.
const MEMORY_MIN = 8;
const MEMORY_MAX = 356;
const MEMORY_STEP = 4;
const BYOC_SIZES: readonly number[] = [48, 116, 172, 232];
export const REPLICAS_MIN = 1;
const REPLICAS_MAX = 20;
export const IDLE_TIMEOUT_MIN = 5;
/** The deprecated total-memory fields always describe three workers (official document). */
const DEPRECATED_TOTAL_WORKERS = 3;

// ---------------------------------------------------------------------------------------------
// Body validation: the wording imitates the real API's ("request body.x: '...'")

export const Memory = z
  .number({ error: 'must be number' })
  .int({ error: 'must be integer' })
  .min(MEMORY_MIN, { error: `must be >= ${MEMORY_MIN}` })
  .max(MEMORY_MAX, { error: `must be <= ${MEMORY_MAX}` })
  .multipleOf(MEMORY_STEP, { error: `must be multiple of ${MEMORY_STEP}` });
const Replicas = z
  .number({ error: 'must be number' })
  .int({ error: 'must be integer' })
  .min(REPLICAS_MIN, { error: `must be >= ${REPLICAS_MIN}` })
  .max(REPLICAS_MAX, { error: `must be <= ${REPLICAS_MAX}` });

const ScalingBodySchema = z
  .strictObject({
    minReplicaMemoryGb: Memory,
    maxReplicaMemoryGb: Memory,
    numReplicas: Replicas,
    minReplicas: Replicas,
    maxReplicas: Replicas,
    autoscalingMode: z.enum(['vertical', 'horizontal'], { error: 'must be one of: vertical, horizontal' }),
    idleScaling: z.boolean({ error: 'must be boolean' }),
    idleTimeoutMinutes: z
      .number({ error: 'must be number' })
      .min(IDLE_TIMEOUT_MIN, { error: `must be >= ${IDLE_TIMEOUT_MIN}` }),
  })
  .partial();
export type ScalingBody = z.infer<typeof ScalingBodySchema>;

const StateBodySchema = z.strictObject({
  command: z.enum(['start', 'stop', 'awake'], { error: 'must be one of: start, stop, awake' }),
});
export type StateBody = z.infer<typeof StateBodySchema>;
export type StateCommandName = StateBody['command'];

function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (text, part) => (typeof part === 'number' ? `${text}[${part}]` : `${text}.${String(part)}`),
    'request body',
  );
}

/** The body as the schema reads it, or the first issue in the API's words. */
export function validate<T>(schema: z.ZodType<T>, body: unknown): Outcome<T> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  if (issue === undefined) return { ok: false, message: 'request body is invalid' };
  return { ok: false, message: `${fieldPath(issue.path)}: '${issue.message}'` };
}

export const validateScalingBody = (body: unknown): Outcome<ScalingBody> => validate(ScalingBodySchema, body);
export const validateStateBody = (body: unknown): Outcome<StateBody> => validate(StateBodySchema, body);

// ---------------------------------------------------------------------------------------------
// Reading a record's capacity

const numberField = (record: ServiceRecordLike, field: string): number | undefined => {
  const value = record[field];
  return typeof value === 'number' ? value : undefined;
};

type Mode = 'vertical' | 'horizontal';

function modeOf(record: ServiceRecordLike): Mode {
  const mode = record['autoscalingMode'];
  if (mode === 'vertical' || mode === 'horizontal') return mode;
  return numberField(record, 'numReplicas') === undefined && numberField(record, 'minReplicas') !== undefined
    ? 'horizontal'
    : 'vertical';
}

interface Baseline {
  mode: Mode;
  minReplicas: number;
  maxReplicas: number;
  minMemory: number;
  maxMemory: number;
}

/** The configured capacity, with the API's defaults for what a (hand-made) record leaves out. */
function baselineOf(record: ServiceRecordLike): Baseline {
  const mode = modeOf(record);
  const fixed = numberField(record, 'numReplicas');
  const minReplicas = numberField(record, 'minReplicas') ?? fixed ?? 3;
  const maxReplicas = numberField(record, 'maxReplicas') ?? fixed ?? minReplicas;
  const single = numberField(record, 'replicaMemoryGb');
  const minMemory = numberField(record, 'minReplicaMemoryGb') ?? single ?? 8;
  const maxMemory = numberField(record, 'maxReplicaMemoryGb') ?? single ?? minMemory;
  return mode === 'vertical'
    ? { mode, minReplicas: fixed ?? minReplicas, maxReplicas: fixed ?? minReplicas, minMemory, maxMemory }
    : { mode, minReplicas, maxReplicas, minMemory, maxMemory };
}

/** `currentScaling` as it reads with no scaling schedule entry active: the baseline itself. */
export function currentScalingOf(record: ServiceRecordLike): Record<string, unknown> {
  const baseline = baselineOf(record);
  const idleScaling = record['idleScaling'];
  const idleTimeout = numberField(record, 'idleTimeoutMinutes');
  return {
    effectiveAutoscalingMode: baseline.mode,
    effectiveMinReplicaMemoryGb: baseline.minMemory,
    effectiveMaxReplicaMemoryGb: baseline.maxMemory,
    effectiveMinReplicas: baseline.minReplicas,
    effectiveMaxReplicas: baseline.maxReplicas,
    ...(typeof idleScaling === 'boolean' ? { effectiveIdleScaling: idleScaling } : {}),
    ...(idleTimeout === undefined ? {} : { effectiveIdleTimeoutMinutes: idleTimeout }),
  };
}

const SCALING_FIELDS = [
  'effectiveAutoscalingMode',
  'effectiveMinReplicaMemoryGb',
  'effectiveMaxReplicaMemoryGb',
  'effectiveMinReplicas',
  'effectiveMaxReplicas',
] as const;

/** True when `current` (a record's currentScaling) says what the baseline says: no schedule active. */
function sameScaling(current: unknown, record: ServiceRecordLike): boolean {
  if (typeof current !== 'object' || current === null) return false;
  const baseline = currentScalingOf(record);
  return SCALING_FIELDS.every((field) => (current as Record<string, unknown>)[field] === baseline[field]);
}

/** The record in the shape of its mode: the fields the real API shows in that mode and no others. */
function withBaseline(record: ServiceRecordLike, baseline: Baseline): ServiceRecordLike {
  const next: ServiceRecordLike = structuredClone(record);
  for (const field of [
    'numReplicas',
    'minReplicas',
    'maxReplicas',
    'replicaMemoryGb',
    'minReplicaMemoryGb',
    'maxReplicaMemoryGb',
    'minTotalMemoryGb',
    'maxTotalMemoryGb',
  ]) {
    delete next[field];
  }
  next['autoscalingMode'] = baseline.mode;
  if (baseline.mode === 'vertical') {
    next['numReplicas'] = baseline.minReplicas;
    next['minReplicaMemoryGb'] = baseline.minMemory;
    next['maxReplicaMemoryGb'] = baseline.maxMemory;
    next['minTotalMemoryGb'] = baseline.minMemory * DEPRECATED_TOTAL_WORKERS;
    next['maxTotalMemoryGb'] = baseline.maxMemory * DEPRECATED_TOTAL_WORKERS;
  } else {
    next['minReplicas'] = baseline.minReplicas;
    next['maxReplicas'] = baseline.maxReplicas;
    next['replicaMemoryGb'] = baseline.minMemory;
  }
  return next;
}

// ---------------------------------------------------------------------------------------------
// PATCH …/replicaScaling

/** Service rules of a scaling body, checked against the record; the message follows `BAD_REQUEST: `. */
function scalingRefusal(record: ServiceRecordLike, body: ScalingBody, next: Baseline): string | undefined {
  if (body.numReplicas !== undefined && (body.minReplicas !== undefined || body.maxReplicas !== undefined)) {
    return 'numReplicas cannot be combined with minReplicas or maxReplicas';
  }
  if ((body.minReplicas === undefined) !== (body.maxReplicas === undefined)) {
    return 'minReplicas and maxReplicas must be set together';
  }
  // Not documented: a minimum above its maximum is refused (the bot refuses it first anyway).
  if (next.minReplicas > next.maxReplicas) return 'minReplicas must not be greater than maxReplicas';
  if (next.minMemory > next.maxMemory) return 'minReplicaMemoryGb must not be greater than maxReplicaMemoryGb';
  const memorySent = body.minReplicaMemoryGb !== undefined || body.maxReplicaMemoryGb !== undefined;
  if (memorySent && record.tier === 'development') {
    return 'replica memory can only be changed for production services';
  }
  // The API means "not BYOC" by an empty byocId as by none.
  if (typeof record['byocId'] === 'string' && record['byocId'].trim() !== '' && memorySent) {
    const size = [body.minReplicaMemoryGb, body.maxReplicaMemoryGb].find(
      (value) => value !== undefined && !BYOC_SIZES.includes(value),
    );
    if (size !== undefined) {
      return `replica memory of a BYOC service must be one of ${BYOC_SIZES.join(', ')} GB, got ${size}`;
    }
  }
  const switching = body.autoscalingMode !== undefined && body.autoscalingMode !== modeOf(record);
  if (next.mode === 'horizontal') {
    if (body.numReplicas !== undefined) {
      return 'numReplicas is for vertical autoscaling; send minReplicas and maxReplicas in horizontal mode';
    }
    if (switching && body.minReplicas === undefined) {
      return 'horizontal autoscaling needs minReplicas and maxReplicas';
    }
    if (next.minMemory !== next.maxMemory) {
      return 'minReplicaMemoryGb and maxReplicaMemoryGb must be equal in horizontal autoscaling';
    }
  } else {
    // min = max is the one replica "range" vertical services take (a fixed count).
    if (body.minReplicas !== undefined && body.minReplicas !== body.maxReplicas) {
      return 'a replica range (minReplicas below maxReplicas) needs horizontal autoscaling';
    }
    if (switching && body.numReplicas === undefined && body.minReplicas === undefined) {
      return 'vertical autoscaling needs numReplicas';
    }
  }
  // The document: the first service of a warehouse needs at least 2 replicas (Basic services have 1).
  if (record['isPrimary'] === true && record.tier !== 'development' && next.minReplicas < 2) {
    return 'the primary service of a warehouse needs at least 2 replicas';
  }
  return undefined;
}

/**
 * The record after a replica scaling body, or why it is refused. Pure. The record comes back in
 * its mode's shape (vertical: numReplicas and a memory range; horizontal: minReplicas/maxReplicas
 * and replicaMemoryGb) with `currentScaling` following the baseline, unless a scaling schedule
 * entry made it differ before (then the schedule's values stay in force, as the real API does).
 * Not documented: whether scaling passes through a state of its own; here it takes effect at once.
 */
export function applyReplicaScaling(record: ServiceRecordLike, body: ScalingBody): Outcome<ServiceRecordLike> {
  const before = baselineOf(record);
  const mode = body.autoscalingMode ?? before.mode;
  const replicas =
    body.numReplicas !== undefined
      ? { minReplicas: body.numReplicas, maxReplicas: body.numReplicas }
      : body.minReplicas !== undefined && body.maxReplicas !== undefined
        ? { minReplicas: body.minReplicas, maxReplicas: body.maxReplicas }
        : { minReplicas: before.minReplicas, maxReplicas: before.maxReplicas };
  const next: Baseline = {
    mode,
    ...replicas,
    minMemory: body.minReplicaMemoryGb ?? before.minMemory,
    maxMemory: body.maxReplicaMemoryGb ?? before.maxMemory,
  };
  const refused = scalingRefusal(record, body, next);
  if (refused !== undefined) return { ok: false, message: refused };
  const scheduled = record['currentScaling'] !== undefined && !sameScaling(record['currentScaling'], record);
  const updated = withBaseline(record, next);
  if (body.idleScaling !== undefined) updated['idleScaling'] = body.idleScaling;
  if (body.idleTimeoutMinutes !== undefined) updated['idleTimeoutMinutes'] = body.idleTimeoutMinutes;
  if (!scheduled) updated['currentScaling'] = currentScalingOf(updated);
  return { ok: true, value: updated };
}

/** Activity types a scaling body gives rise to, one per aspect it touches. */
export function scalingActivityTypes(body: ScalingBody): string[] {
  const types: string[] = [];
  if (body.minReplicaMemoryGb !== undefined || body.maxReplicaMemoryGb !== undefined) {
    types.push('service_update_autoscaling_memory');
  }
  if (
    body.numReplicas !== undefined ||
    body.minReplicas !== undefined ||
    body.maxReplicas !== undefined ||
    body.autoscalingMode !== undefined
  ) {
    types.push('service_update_autoscaling_replicas');
  }
  if (body.idleScaling !== undefined || body.idleTimeoutMinutes !== undefined) {
    types.push('service_update_autoscaling_idling');
  }
  return types;
}

// ---------------------------------------------------------------------------------------------
// PATCH …/state

/** A state a command moves the service through, and where it settles. */
export interface Transition {
  /** Right after the command is accepted. */
  through: string;
  /** After the simulator's transition delay. */
  to: string;
  activity: string;
}

/**
 * Which command fits which state. The real API's answer to a command that does not fit is not
 * documented: here it is a 400 that says what the service is doing, which is plausible and is what
 * the bot must turn into a sentence anyway.
 */
export function stateTransition(record: ServiceRecordLike, command: StateCommandName): Outcome<Transition> {
  const state = record.state ?? 'running';
  const refuse = (message: string): Outcome<Transition> => ({ ok: false, message });
  switch (command) {
    case 'stop':
      if (['running', 'idle', 'degraded', 'partially_running'].includes(state)) {
        return { ok: true, value: { through: 'stopping', to: 'stopped', activity: 'service_stop' } };
      }
      return refuse(`cannot stop the service while it is ${state}`);
    case 'start':
      if (state === 'stopped') {
        return { ok: true, value: { through: 'starting', to: 'running', activity: 'service_start' } };
      }
      return refuse(`cannot start the service while it is ${state}; only a stopped service can be started`);
    case 'awake':
      if (state === 'idle') {
        return { ok: true, value: { through: 'awaking', to: 'running', activity: 'service_awaken' } };
      }
      return refuse(`cannot awake the service while it is ${state}; only an idle service can be awoken`);
  }
}
