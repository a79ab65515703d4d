/**
 * The capacity kinds (replicas, memory per replica, idle scaling, power) as approvers and the bot
 * see them, planned against the demo organization: the before → after lines, the operations and
 * their bodies, what the stale check compares, every warning and risk with its boundary, and what
 * undo and a temporary change's revert send back.
 */
import { describe, expect, it } from 'vitest';
import { planChange } from '../../../src/core/change/plan.js';
import { staleFields, staleLabels } from '../../../src/core/change/state.js';
import { planRevert, planUndo, temporaryPlanProblem } from '../../../src/core/change/temporary.js';
import type { ChangeIntent, ChangePlan, FieldChange } from '../../../src/core/change/types.js';
import { planRisks } from '../../../src/core/policy/facts.js';
import { ServiceRecordSchema, type ServiceRecord } from '../../../src/core/service/schema.js';
import { demoServices } from '../../../src/simulator/seed.js';

/** A demo service by name, parsed through the real schema, with fields overridden (undefined removes one). */
function demo(name: string, overrides: Record<string, unknown> = {}): ServiceRecord {
  const record = demoServices().find((service) => service.name === name);
  if (record === undefined) throw new Error(`no demo service ${name}`);
  const merged: Record<string, unknown> = { ...record, ...overrides };
  for (const [key, value] of Object.entries(overrides)) if (value === undefined) delete merged[key];
  return ServiceRecordSchema.parse(merged);
}

function plan(service: ServiceRecord, intent: ChangeIntent): ChangePlan {
  const result = planChange(service, intent);
  if (!result.ok) throw new Error(`expected a plan, got ${JSON.stringify(result.problems)}`);
  return result.plan;
}

function problems(service: ServiceRecord, intent: ChangeIntent): Array<{ field: string; message: string }> {
  const result = planChange(service, intent);
  if (result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result.plan.changes)}`);
  return result.problems;
}

const line = (field: FieldChange['field'], label: string, before: string, after: string): FieldChange => ({
  field,
  label,
  before,
  after,
});

const PROD_STOP = 'orders-prod is tagged production: stopping it takes it offline until it is started again.';
const PROD_IDLE =
  'orders-prod is tagged production: with idle scaling on it pauses when idle, and the first query after waits for it to wake.';

describe('planning each kind against the demo organization', () => {
  it('scale orders-prod replicas 6: a fixed count, with total memory', () => {
    const p = plan(demo('orders-prod'), { replicas: { min: 6, max: 6 } });
    expect(p.changes).toStrictEqual([
      line('replicas', 'Replicas', '3', '6'),
      line('replicas', 'Total memory', '24–96 GB', '48–192 GB'),
    ]);
    expect(p.update).toStrictEqual({});
    expect(p.operations).toStrictEqual([
      { endpoint: 'replicaScaling', body: { numReplicas: 6 }, expect: { numReplicas: 6 } },
    ]);
    expect(p.before).toStrictEqual({ replicas: { numReplicas: 3 } });
    expect(p.capacity?.before).toMatchObject({ numReplicas: 3, minReplicaMemoryGb: 8, maxReplicaMemoryGb: 32 });
    expect(p.capacity?.after).toMatchObject({ numReplicas: 6, minReplicaMemoryGb: 8, maxReplicaMemoryGb: 32 });
    expect(p.warnings).toStrictEqual([]);
    expect(planRisks(p)).toStrictEqual([]);
  });

  it('scale search-prod replicas 2-8: a range under horizontal autoscaling', () => {
    const p = plan(demo('search-prod'), { replicas: { min: 2, max: 8 } });
    expect(p.changes).toStrictEqual([
      line('replicas', 'Replicas', '2–6', '2–8'),
      line('replicas', 'Total memory', '32–96 GB', '32–128 GB'),
    ]);
    expect(p.operations).toStrictEqual([
      {
        endpoint: 'replicaScaling',
        body: { minReplicas: 2, maxReplicas: 8 },
        expect: { minReplicas: 2, maxReplicas: 8 },
      },
    ]);
    expect(p.before).toStrictEqual({ replicas: { minReplicas: 2, maxReplicas: 6 } });
  });

  it('scale search-prod replicas 4: min = max = 4 under horizontal autoscaling', () => {
    const p = plan(demo('search-prod'), { replicas: { min: 4, max: 4 } });
    expect(p.changes[0]).toStrictEqual(line('replicas', 'Replicas', '2–6', '4'));
    expect(p.operations?.[0]).toMatchObject({ body: { minReplicas: 4, maxReplicas: 4 } });
  });

  it('scale orders-prod memory 16-64: a memory range, total on the memory line', () => {
    const p = plan(demo('orders-prod'), { replicaMemoryGb: { min: 16, max: 64 } });
    expect(p.changes).toStrictEqual([
      line('replicaMemory', 'Memory per replica', '8–32 GB', '16–64 GB'),
      line('replicaMemory', 'Total memory', '24–96 GB', '48–192 GB'),
    ]);
    expect(p.operations).toStrictEqual([
      {
        endpoint: 'replicaScaling',
        body: { minReplicaMemoryGb: 16, maxReplicaMemoryGb: 64 },
        expect: { minReplicaMemoryGb: 16, maxReplicaMemoryGb: 64 },
      },
    ]);
    expect(p.before).toStrictEqual({ replicaMemory: { minReplicaMemoryGb: 8, maxReplicaMemoryGb: 32 } });
  });

  it('scale search-prod memory 32: one size for every replica', () => {
    const p = plan(demo('search-prod'), { replicaMemoryGb: { min: 32, max: 32 } });
    expect(p.changes).toStrictEqual([
      line('replicaMemory', 'Memory per replica', '16 GB', '32 GB'),
      line('replicaMemory', 'Total memory', '32–96 GB', '64–192 GB'),
    ]);
    expect(p.operations?.[0]).toMatchObject({ body: { minReplicaMemoryGb: 32, maxReplicaMemoryGb: 32 } });
    expect(p.before).toStrictEqual({ replicaMemory: { minReplicaMemoryGb: 16, maxReplicaMemoryGb: 16 } });
  });

  it('idle orders-prod on after 30m: both fields, no total line, and the production warning', () => {
    const p = plan(demo('orders-prod'), { idleScaling: { enabled: true, timeoutMinutes: 30 } });
    expect(p.changes).toStrictEqual([line('idleScaling', 'Idle scaling', 'off', 'on, after 30 minutes')]);
    expect(p.operations).toStrictEqual([
      {
        endpoint: 'replicaScaling',
        body: { idleScaling: true, idleTimeoutMinutes: 30 },
        expect: { idleScaling: true, idleTimeoutMinutes: 30 },
      },
    ]);
    expect(p.before).toStrictEqual({ idleScaling: { idleScaling: false, idleTimeoutMinutes: 15 } });
    expect(p.warnings).toStrictEqual([PROD_IDLE]);
    expect(planRisks(p)).toStrictEqual([]);
  });

  it('idle orders-prod on: the timeout is kept (not sent)', () => {
    const p = plan(demo('orders-prod'), { idleScaling: { enabled: true } });
    expect(p.changes).toStrictEqual([line('idleScaling', 'Idle scaling', 'off', 'on')]);
    expect(p.operations?.[0]).toMatchObject({ body: { idleScaling: true } });
    expect(p.operations?.[0]).not.toHaveProperty('body.idleTimeoutMinutes');
  });

  it('idle sandbox-dev off', () => {
    const p = plan(demo('sandbox-dev'), { idleScaling: { enabled: false } });
    expect(p.changes).toStrictEqual([line('idleScaling', 'Idle scaling', 'on', 'off')]);
    expect(p.operations).toStrictEqual([
      { endpoint: 'replicaScaling', body: { idleScaling: false }, expect: { idleScaling: false } },
    ]);
    expect(p.warnings).toStrictEqual([]);
  });

  it('a new timeout on a service that idles shows both timeouts', () => {
    const p = plan(demo('sandbox-dev'), { idleScaling: { enabled: true, timeoutMinutes: 30 } });
    expect(p.changes).toStrictEqual([
      line('idleScaling', 'Idle scaling', 'on, after 15 minutes', 'on, after 30 minutes'),
    ]);
  });

  it('a new timeout while idle scaling is off is visible on the request line', () => {
    const p = plan(demo('orders-prod'), { idleScaling: { enabled: false, timeoutMinutes: 30 } });
    expect(p.operations?.[0]).toMatchObject({ body: { idleScaling: false, idleTimeoutMinutes: 30 } });
    const [change] = p.changes;
    expect(change?.before).not.toBe(change?.after);
  });

  it.each([
    ['stop', 'orders-prod', 'stop', 'running', 'stopped'],
    ['start', 'orders-staging', 'start', 'stopped', 'running'],
    ['wake', 'analytics staging', 'awake', 'idle', 'running'],
  ] as const)('%s %s: one state operation', (action, name, command, from, to) => {
    const p = plan(demo(name), { power: action });
    expect(p.changes).toStrictEqual([line('power', 'State', from, to)]);
    expect(p.operations).toStrictEqual([{ endpoint: 'state', body: { command }, expect: { state: to } }]);
    expect(p.before).toStrictEqual({ power: from });
    expect(p.capacity?.before.state).toBe(from);
    expect(p.capacity?.after.state).toBe(to);
    expect(planRisks(p)).toStrictEqual(action === 'stop' ? ['stop'] : []);
  });

  it('a name change alone stays a plain update, with no operations or capacity', () => {
    const p = plan(demo('orders-prod'), { name: 'orders-main', replicas: { min: 3, max: 3 } });
    expect(p.operations).toBeUndefined();
    expect(p.capacity).toBeUndefined();
    expect(p.changes.map((c) => c.label)).toStrictEqual(['Name']);
  });
});

describe('several capacity fields in one request', () => {
  it('sends replicas and memory in ONE replicaScaling body, with one total line', () => {
    const p = plan(demo('orders-prod'), { replicas: { min: 6, max: 6 }, replicaMemoryGb: { min: 16, max: 64 } });
    expect(p.operations).toStrictEqual([
      {
        endpoint: 'replicaScaling',
        body: { numReplicas: 6, minReplicaMemoryGb: 16, maxReplicaMemoryGb: 64 },
        expect: { numReplicas: 6, minReplicaMemoryGb: 16, maxReplicaMemoryGb: 64 },
      },
    ]);
    expect(p.changes).toStrictEqual([
      line('replicas', 'Replicas', '3', '6'),
      line('replicaMemory', 'Memory per replica', '8–32 GB', '16–64 GB'),
      line('replicaMemory', 'Total memory', '24–96 GB', '96–384 GB'),
    ]);
    expect(p.before).toStrictEqual({
      replicas: { numReplicas: 3 },
      replicaMemory: { minReplicaMemoryGb: 8, maxReplicaMemoryGb: 32 },
    });
    expect(p.warnings).toStrictEqual([
      'Total memory grows from 24–96 GB to 96–384 GB, 4× or more: the cost grows with it.',
    ]);
    expect(planRisks(p)).toStrictEqual(['capacity-up-large']);
  });

  it('drops prefilled fields left as they are, silently, while another field changes', () => {
    const p = plan(demo('orders-prod'), {
      replicas: { min: 3, max: 3 },
      replicaMemoryGb: { min: 16, max: 64 },
      idleScaling: { enabled: false },
    });
    expect(p.changes.map((c) => c.label)).toStrictEqual(['Memory per replica', 'Total memory']);
    expect(p.operations).toStrictEqual([
      {
        endpoint: 'replicaScaling',
        body: { minReplicaMemoryGb: 16, maxReplicaMemoryGb: 64 },
        expect: { minReplicaMemoryGb: 16, maxReplicaMemoryGb: 64 },
      },
    ]);
    expect(p.before).toStrictEqual({ replicaMemory: { minReplicaMemoryGb: 8, maxReplicaMemoryGb: 32 } });
    expect(p.warnings).toStrictEqual([]);
  });

  it('says "already" for each field when nothing changes', () => {
    expect(
      problems(demo('orders-prod'), {
        replicas: { min: 3, max: 3 },
        replicaMemoryGb: { min: 8, max: 32 },
        idleScaling: { enabled: false },
      }),
    ).toStrictEqual([
      { field: 'replicas', message: 'orders-prod already runs 3 replicas.' },
      { field: 'replicaMemoryGb', message: 'orders-prod already has 8–32 GB per replica.' },
      {
        field: 'idleScaling',
        message: 'orders-prod already has idle scaling off.',
      },
    ]);
  });

  it('refuses a real problem even when another field is a no-op', () => {
    const refused = problems(demo('orders-prod'), {
      replicas: { min: 3, max: 3 },
      replicaMemoryGb: { min: 10, max: 10 },
    });
    expect(refused.map((p) => p.field)).toStrictEqual(['replicaMemoryGb']);
  });
});

describe('"already" sentences', () => {
  it.each<[string, ChangeIntent, string]>([
    ['orders-prod', { replicas: { min: 3, max: 3 } }, 'orders-prod already runs 3 replicas.'],
    ['search-prod', { replicas: { min: 2, max: 6 } }, 'search-prod already runs between 2 and 6 replicas.'],
    ['orders-prod', { replicaMemoryGb: { min: 8, max: 32 } }, 'orders-prod already has 8–32 GB per replica.'],
    ['search-prod', { replicaMemoryGb: { min: 16, max: 16 } }, 'search-prod already has 16 GB per replica.'],
    ['sandbox-dev', { idleScaling: { enabled: true } }, 'sandbox-dev already idles after 15 minutes.'],
    [
      'sandbox-dev',
      { idleScaling: { enabled: true, timeoutMinutes: 15 } },
      'sandbox-dev already idles after 15 minutes.',
    ],
    ['orders-prod', { idleScaling: { enabled: false } }, 'orders-prod already has idle scaling off.'],
    ['orders-staging', { power: 'stop' }, 'orders-staging is already stopped.'],
    ['orders-prod', { power: 'start' }, 'orders-prod is already running.'],
    ['orders-prod', { power: 'wake' }, 'orders-prod is already running.'],
    [
      'analytics staging',
      { power: 'start' },
      'analytics staging is idle, not stopped: ask for wake "analytics staging" instead.',
    ],
    ['orders-staging', { power: 'wake' }, 'orders-staging is stopped, not idle: ask for start orders-staging instead.'],
  ])('%s %j', (name, intent, message) => {
    expect(problems(demo(name), intent).map((p) => p.message)).toStrictEqual([message]);
  });
});

describe('warnings', () => {
  it('stopping a service tagged production', () => {
    expect(plan(demo('orders-prod'), { power: 'stop' }).warnings).toStrictEqual([PROD_STOP]);
    expect(
      plan(demo('orders-prod', { tags: [{ key: 'environment', value: 'Production' }] }), { power: 'stop' }).warnings,
    ).toStrictEqual([PROD_STOP]);
    expect(plan(demo('orders-prod', { tags: [{ key: 'production' }] }), { power: 'stop' }).warnings).toStrictEqual([
      PROD_STOP,
    ]);
  });

  it('stopping a service that accepts connections, and not one nobody can reach', () => {
    expect(plan(demo('analytics staging'), { power: 'stop' }).warnings).toStrictEqual([
      'analytics staging accepts connections: clients will fail to connect while it is stopped.',
    ]);
    // events-staging has no IP access entry and no private endpoint.
    expect(plan(demo('events-staging'), { power: 'stop' }).warnings).toStrictEqual([]);
    expect(plan(demo('legacy-reporting', { endpoints: [] }), { power: 'stop' }).warnings).toStrictEqual([]);
  });

  it('possibly a single replica (with replicas halved)', () => {
    const p = plan(demo('orders-prod-readonly'), { replicas: { min: 1, max: 1 } });
    expect(p.warnings).toStrictEqual([
      'orders-prod-readonly may run a single replica: no redundancy while that replica restarts or is upgraded.',
      'Replicas go from 2 to 1, down by half or more: make sure the load still fits.',
    ]);
    expect(planRisks(p)).toStrictEqual(['capacity-down', 'single-replica']);
  });

  it('replicas down by half: exactly half warns, a little less than half does not', () => {
    const half = plan(demo('search-prod'), { replicas: { min: 2, max: 3 } });
    expect(half.warnings).toStrictEqual([
      'Replicas go from 2–6 to 2–3, down by half or more: make sure the load still fits.',
    ]);
    expect(planRisks(half)).toStrictEqual(['capacity-down']);
    const less = plan(demo('search-prod'), { replicas: { min: 2, max: 4 } });
    expect(less.warnings).toStrictEqual([]);
    expect(planRisks(less)).toStrictEqual([]);
  });

  it('memory per replica down by half: exactly half warns, less than half does not', () => {
    const half = plan(demo('orders-prod'), { replicaMemoryGb: { min: 8, max: 16 } });
    expect(half.warnings).toStrictEqual([
      'Memory per replica goes from 8–32 GB to 8–16 GB, down by half or more: make sure the queries still fit.',
    ]);
    expect(planRisks(half)).toStrictEqual(['capacity-down']);
    const less = plan(demo('orders-prod'), { replicaMemoryGb: { min: 8, max: 20 } });
    expect(less.warnings).toStrictEqual([]);
    expect(planRisks(less)).toStrictEqual([]);
    const horizontal = plan(demo('search-prod'), { replicaMemoryGb: { min: 8, max: 8 } });
    expect(planRisks(horizontal)).toStrictEqual(['capacity-down']);
  });

  it('total memory up 4×: exactly 4× warns, a step less does not', () => {
    const memory = plan(demo('orders-prod'), { replicaMemoryGb: { min: 8, max: 128 } });
    expect(memory.warnings).toStrictEqual([
      'Total memory grows from 24–96 GB to 24–384 GB, 4× or more: the cost grows with it.',
    ]);
    expect(planRisks(memory)).toStrictEqual(['capacity-up-large']);
    const below = plan(demo('orders-prod'), { replicaMemoryGb: { min: 8, max: 124 } });
    expect(below.warnings).toStrictEqual([]);
    expect(planRisks(below)).toStrictEqual([]);

    const replicas = plan(demo('orders-prod'), { replicas: { min: 12, max: 12 } });
    expect(replicas.warnings).toStrictEqual([
      'Total memory grows from 24–96 GB to 96–384 GB, 4× or more: the cost grows with it.',
    ]);
    expect(planRisks(replicas)).toStrictEqual(['capacity-up-large']);
    expect(planRisks(plan(demo('orders-prod'), { replicas: { min: 11, max: 11 } }))).toStrictEqual([]);
  });

  it('idle scaling on for a production service, not for another one', () => {
    expect(plan(demo('orders-prod'), { idleScaling: { enabled: true } }).warnings).toStrictEqual([PROD_IDLE]);
    expect(
      plan(demo('events-staging', { idleScaling: false }), { idleScaling: { enabled: true } }).warnings,
    ).toStrictEqual([]);
    // Already on: a new timeout is no news about pausing.
    expect(
      plan(demo('orders-prod', { idleScaling: true }), { idleScaling: { enabled: true, timeoutMinutes: 30 } }).warnings,
    ).toStrictEqual([]);
  });

  it('a scaling change to a service that is not running or idle', () => {
    expect(plan(demo('billing-prod'), { replicas: { min: 4, max: 4 } }).warnings).toStrictEqual([
      'billing-prod is degraded right now: the change is made to a service that is not running.',
    ]);
    expect(plan(demo('orders-staging'), { replicas: { min: 2, max: 2 } }).warnings).toStrictEqual([
      'orders-staging is stopped right now: the change is made to a service that is not running.',
    ]);
    expect(plan(demo('sandbox-dev'), { idleScaling: { enabled: false } }).warnings).toStrictEqual([]);
    // A power change is about the state itself: no such warning.
    expect(plan(demo('billing-prod'), { power: 'stop' }).warnings).toStrictEqual([
      'billing-prod is tagged production: stopping it takes it offline until it is started again.',
    ]);
  });
});

describe('the stale check at approval', () => {
  it('a replica count changed since the request makes it stale', () => {
    const p = plan(demo('orders-prod'), { replicas: { min: 6, max: 6 } });
    expect(staleFields(p, demo('orders-prod'))).toStrictEqual([]);
    expect(staleFields(p, demo('orders-prod', { numReplicas: 4 }))).toStrictEqual(['replicas']);
    // Memory is not what this request touches.
    expect(staleFields(p, demo('orders-prod', { maxReplicaMemoryGb: 64 }))).toStrictEqual([]);
  });

  it('a memory change whose total moved (replicas changed by another request) is stale by its total', () => {
    const memory = plan(demo('orders-prod'), { replicaMemoryGb: { min: 16, max: 64 } });
    expect(staleLabels(memory, demo('orders-prod'))).toStrictEqual([]);
    expect(staleLabels(memory, demo('orders-prod', { numReplicas: 5 }))).toStrictEqual([
      'total memory: 40–160 GB now, 24–96 GB when asked',
    ]);
    // A stop shows no total: replicas changed meanwhile are not its business.
    const stop = plan(demo('orders-prod'), { power: 'stop' });
    expect(staleLabels(stop, demo('orders-prod', { numReplicas: 5 }))).toStrictEqual([]);
  });

  it('a horizontal range, memory and idle scaling are compared field by field', () => {
    const range = plan(demo('search-prod'), { replicas: { min: 2, max: 8 } });
    expect(staleFields(range, demo('search-prod', { maxReplicas: 5 }))).toStrictEqual(['replicas']);
    const memory = plan(demo('orders-prod'), { replicaMemoryGb: { min: 16, max: 64 } });
    expect(staleFields(memory, demo('orders-prod', { minReplicaMemoryGb: 12 }))).toStrictEqual(['replicaMemory']);
    const idle = plan(demo('orders-prod'), { idleScaling: { enabled: true } });
    expect(staleFields(idle, demo('orders-prod', { idleTimeoutMinutes: 20 }))).toStrictEqual(['idleScaling']);
    expect(staleFields(idle, demo('orders-prod', { idleScaling: true }))).toStrictEqual(['idleScaling']);
  });

  it('a running service that went idle by itself is not stale for a stop; a stopped one is', () => {
    const stop = plan(demo('orders-prod'), { power: 'stop' });
    expect(staleFields(stop, demo('orders-prod', { state: 'idle' }))).toStrictEqual([]);
    expect(staleFields(stop, demo('orders-prod', { state: 'degraded' }))).toStrictEqual([]);
    expect(staleFields(stop, demo('orders-prod', { state: 'stopped' }))).toStrictEqual(['power']);
    expect(staleFields(stop, demo('orders-prod', { state: 'stopping' }))).toStrictEqual(['power']);
    const start = plan(demo('orders-staging'), { power: 'start' });
    expect(staleFields(start, demo('orders-staging', { state: 'running' }))).toStrictEqual(['power']);
  });
});

describe('undo and revert restore exactly the values replaced', () => {
  const cases: Array<[string, string, ChangeIntent, Record<string, unknown>, ChangeIntent]> = [
    [
      'vertical replicas',
      'orders-prod',
      { replicas: { min: 6, max: 6 } },
      { numReplicas: 6 },
      { replicas: { min: 3, max: 3 } },
    ],
    [
      'horizontal replicas',
      'search-prod',
      { replicas: { min: 2, max: 8 } },
      { maxReplicas: 8 },
      { replicas: { min: 2, max: 6 } },
    ],
    [
      'a memory range',
      'orders-prod',
      { replicaMemoryGb: { min: 16, max: 64 } },
      { minReplicaMemoryGb: 16, maxReplicaMemoryGb: 64 },
      { replicaMemoryGb: { min: 8, max: 32 } },
    ],
    [
      'horizontal memory',
      'search-prod',
      { replicaMemoryGb: { min: 32, max: 32 } },
      { replicaMemoryGb: 32 },
      { replicaMemoryGb: { min: 16, max: 16 } },
    ],
    [
      'idle on with a timeout',
      'orders-prod',
      { idleScaling: { enabled: true, timeoutMinutes: 30 } },
      { idleScaling: true, idleTimeoutMinutes: 30 },
      { idleScaling: { enabled: false, timeoutMinutes: 15 } },
    ],
    [
      'idle off',
      'sandbox-dev',
      { idleScaling: { enabled: false } },
      { idleScaling: false },
      { idleScaling: { enabled: true, timeoutMinutes: 15 } },
    ],
    ['a stop', 'orders-prod', { power: 'stop' }, { state: 'stopped' }, { power: 'start' }],
    ['a stop still stopping', 'orders-prod', { power: 'stop' }, { state: 'stopping' }, { power: 'start' }],
    ['a start', 'orders-staging', { power: 'start' }, { state: 'running' }, { power: 'stop' }],
    ['a start gone idle', 'orders-staging', { power: 'start' }, { state: 'idle' }, { power: 'stop' }],
  ];

  it.each(cases)('%s', (_, name, intent, applied, inverse) => {
    const p = plan(demo(name), intent);
    const after = demo(name, applied);
    expect(planUndo(p, after)).toStrictEqual({ intent: inverse, leftAlone: [] });
    expect(planRevert(p, after)).toStrictEqual({ intent: inverse, leftAlone: [] });
  });

  it('the inverse of a scaling plans back to the original body', () => {
    const p = plan(demo('orders-prod'), { replicas: { min: 6, max: 6 }, replicaMemoryGb: { min: 16, max: 64 } });
    const after = demo('orders-prod', { numReplicas: 6, minReplicaMemoryGb: 16, maxReplicaMemoryGb: 64 });
    const undo = planUndo(p, after);
    expect(undo).toStrictEqual({
      intent: { replicas: { min: 3, max: 3 }, replicaMemoryGb: { min: 8, max: 32 } },
      leftAlone: [],
    });
    expect(plan(after, undo.intent).operations).toStrictEqual([
      {
        endpoint: 'replicaScaling',
        body: { numReplicas: 3, minReplicaMemoryGb: 8, maxReplicaMemoryGb: 32 },
        expect: { numReplicas: 3, minReplicaMemoryGb: 8, maxReplicaMemoryGb: 32 },
      },
    ]);
  });

  it('a wake has nothing to undo, and says so', () => {
    const p = plan(demo('analytics staging'), { power: 'wake' });
    expect(planUndo(p, demo('analytics staging', { state: 'running' }))).toStrictEqual({
      intent: {},
      leftAlone: ['A woken service goes idle again by itself after its idle timeout: there is nothing to undo.'],
    });
  });

  it('leaves alone, with a sentence, what was changed by hand since', () => {
    const replicas = plan(demo('orders-prod'), { replicas: { min: 6, max: 6 } });
    const byHand = {
      intent: {},
      leftAlone: ['orders-prod was changed by hand since (replicas is 5, not 6), so that part is left as it is.'],
    };
    expect(planUndo(replicas, demo('orders-prod', { numReplicas: 5 }))).toStrictEqual(byHand);
    expect(planRevert(replicas, demo('orders-prod', { numReplicas: 5 }))).toStrictEqual(byHand);

    const stop = plan(demo('orders-prod'), { power: 'stop' });
    expect(planRevert(stop, demo('orders-prod', { state: 'running' }))).toStrictEqual({
      intent: {},
      leftAlone: [
        'orders-prod was changed by hand since (state is running, not stopped), so that part is left as it is.',
      ],
    });

    const idle = plan(demo('orders-prod'), { idleScaling: { enabled: true, timeoutMinutes: 30 } });
    expect(planUndo(idle, demo('orders-prod', { idleScaling: true, idleTimeoutMinutes: 45 })).leftAlone).toStrictEqual([
      'orders-prod was changed by hand since (idle timeout is 45 minutes, not 30 minutes), so that part is left as it is.',
    ]);
  });

  it('restores the part still as the change left it and leaves the part changed by hand', () => {
    const p = plan(demo('orders-prod'), { replicas: { min: 6, max: 6 }, replicaMemoryGb: { min: 16, max: 64 } });
    const after = demo('orders-prod', { numReplicas: 6, minReplicaMemoryGb: 16, maxReplicaMemoryGb: 48 });
    expect(planRevert(p, after)).toStrictEqual({
      intent: { replicas: { min: 3, max: 3 } },
      leftAlone: [
        'orders-prod was changed by hand since (maximum memory per replica is 48 GB, not 64 GB), so that part is left as it is.',
      ],
    });
  });
});

describe('temporaryPlanProblem', () => {
  const ONLY =
    'Only ip add, endpoint … mysql on, query-endpoint … on, scale, idle, stop, start and grant can be temporary: the bot can take those back exactly.';

  it.each<[string, string, ChangeIntent]>([
    ['scale replicas', 'orders-prod', { replicas: { min: 6, max: 6 } }],
    ['scale memory', 'orders-prod', { replicaMemoryGb: { min: 16, max: 64 } }],
    ['replicas and memory', 'orders-prod', { replicas: { min: 6, max: 6 }, replicaMemoryGb: { min: 16, max: 64 } }],
    ['idle', 'orders-prod', { idleScaling: { enabled: true, timeoutMinutes: 30 } }],
    ['stop', 'events-staging', { power: 'stop' }],
    ['start', 'orders-staging', { power: 'start' }],
  ])('accepts %s', (_, name, intent) => {
    expect(temporaryPlanProblem(intent, plan(demo(name), intent))).toBeUndefined();
  });

  it.each<[string, string, ChangeIntent]>([
    ['wake', 'analytics staging', { power: 'wake' }],
    ['a rename with a scale', 'orders-prod', { name: 'orders-main', replicas: { min: 6, max: 6 } }],
    ['a tag with a stop', 'events-staging', { tagAdd: [{ key: 'paused' }], power: 'stop' }],
  ])('refuses %s', (_, name, intent) => {
    expect(temporaryPlanProblem(intent, plan(demo(name), intent))).toBe(ONLY);
  });

  it('refuses a temporary idle change on a record that does not show idle scaling', () => {
    const service = demo('orders-prod', { idleScaling: undefined });
    const intent: ChangeIntent = { idleScaling: { enabled: true, timeoutMinutes: 30 } };
    expect(temporaryPlanProblem(intent, plan(service, intent))).toBe(
      'The service does not show its idle scaling now, so the bot could not set it back exactly: ask without for.',
    );
  });
});
