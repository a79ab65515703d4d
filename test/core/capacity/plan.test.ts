import { describe, expect, it } from 'vitest';
import { planCapacityChange, type CapacityTarget } from '../../../src/core/capacity/plan.js';
import { inverseOf, planRevert } from '../../../src/core/capacity/revert.js';
import {
  capacityDifferences,
  capacityValuesOf,
  differencesText,
  scalingModeOf,
} from '../../../src/core/capacity/values.js';
import { ServiceRecordSchema, type ServiceRecord } from '../../../src/core/service/schema.js';
import { demoServices, DEMO_IDS } from '../../../src/simulator/seed.js';
import { applyReplicaScaling } from '../../../src/simulator/capacity.js';
import { dev, horizontal, planned, vertical } from './records.js';

const replicas = (min: number, max = min): CapacityTarget => ({ kind: 'replicas', min, max });
const memory = (minGb: number, maxGb = minGb): CapacityTarget => ({ kind: 'memory', minGb, maxGb });
const power = (action: 'stop' | 'start' | 'wake'): CapacityTarget => ({ kind: 'power', action });

function problems(service: ServiceRecord, target: CapacityTarget): string[] {
  const plan = planCapacityChange(service, target);
  if (plan.ok) throw new Error(`expected problems, got ${JSON.stringify(plan.change.operation)}`);
  return plan.problems;
}

describe('planning: every form that is accepted', () => {
  it.each<[string, () => ServiceRecord, CapacityTarget, object, object, object]>([
    [
      'replicas N on a vertical service',
      () => vertical(),
      replicas(6),
      { kind: 'replicaScaling', body: { numReplicas: 6 } },
      { numReplicas: 3 },
      { numReplicas: 6 },
    ],
    [
      'replicas N-N on a vertical service (a fixed count)',
      () => vertical(),
      replicas(5, 5),
      { kind: 'replicaScaling', body: { numReplicas: 5 } },
      { numReplicas: 3 },
      { numReplicas: 5 },
    ],
    [
      'replicas N on a horizontal service (min = max)',
      () => horizontal(),
      replicas(4),
      { kind: 'replicaScaling', body: { minReplicas: 4, maxReplicas: 4 } },
      { minReplicas: 2, maxReplicas: 6 },
      { minReplicas: 4, maxReplicas: 4 },
    ],
    [
      'replicas MIN-MAX on a horizontal service',
      () => horizontal(),
      replicas(3, 10),
      { kind: 'replicaScaling', body: { minReplicas: 3, maxReplicas: 10 } },
      { minReplicas: 2, maxReplicas: 6 },
      { minReplicas: 3, maxReplicas: 10 },
    ],
    [
      'replicas 1 on a development service',
      () => dev({ numReplicas: 2 }),
      replicas(1),
      { kind: 'replicaScaling', body: { numReplicas: 1 } },
      { numReplicas: 2 },
      { numReplicas: 1 },
    ],
    [
      'replicas 1 on a service that is not its warehouse’s first',
      () => vertical({ isPrimary: false }),
      replicas(1),
      { kind: 'replicaScaling', body: { numReplicas: 1 } },
      { numReplicas: 3 },
      { numReplicas: 1 },
    ],
    [
      'replicas 20, the maximum',
      () => vertical(),
      replicas(20),
      { kind: 'replicaScaling', body: { numReplicas: 20 } },
      { numReplicas: 3 },
      { numReplicas: 20 },
    ],
    [
      'memory GB on a vertical service (a fixed size)',
      () => vertical(),
      memory(64),
      { kind: 'replicaScaling', body: { minReplicaMemoryGb: 64, maxReplicaMemoryGb: 64 } },
      { minReplicaMemoryGb: 8, maxReplicaMemoryGb: 32 },
      { minReplicaMemoryGb: 64, maxReplicaMemoryGb: 64 },
    ],
    [
      'memory MIN-MAX on a vertical service',
      () => vertical(),
      memory(16, 64),
      { kind: 'replicaScaling', body: { minReplicaMemoryGb: 16, maxReplicaMemoryGb: 64 } },
      { minReplicaMemoryGb: 8, maxReplicaMemoryGb: 32 },
      { minReplicaMemoryGb: 16, maxReplicaMemoryGb: 64 },
    ],
    [
      'memory 8 and 356, the bounds',
      () => vertical(),
      memory(8, 356),
      { kind: 'replicaScaling', body: { minReplicaMemoryGb: 8, maxReplicaMemoryGb: 356 } },
      { minReplicaMemoryGb: 8, maxReplicaMemoryGb: 32 },
      { minReplicaMemoryGb: 8, maxReplicaMemoryGb: 356 },
    ],
    [
      'memory GB on a horizontal service (from replicaMemoryGb)',
      () => horizontal(),
      memory(32),
      { kind: 'replicaScaling', body: { minReplicaMemoryGb: 32, maxReplicaMemoryGb: 32 } },
      { minReplicaMemoryGb: 16, maxReplicaMemoryGb: 16 },
      { minReplicaMemoryGb: 32, maxReplicaMemoryGb: 32 },
    ],
    [
      'memory of a BYOC size on a BYOC service',
      () => vertical({ byocId: 'byoc-1', minReplicaMemoryGb: 48, maxReplicaMemoryGb: 48 }),
      memory(116, 232),
      { kind: 'replicaScaling', body: { minReplicaMemoryGb: 116, maxReplicaMemoryGb: 232 } },
      { minReplicaMemoryGb: 48, maxReplicaMemoryGb: 48 },
      { minReplicaMemoryGb: 116, maxReplicaMemoryGb: 232 },
    ],
    [
      'memory on a record without a tier (production, as the Terraform provider reads it)',
      () => vertical({ tier: undefined }),
      memory(16, 32),
      { kind: 'replicaScaling', body: { minReplicaMemoryGb: 16, maxReplicaMemoryGb: 32 } },
      { minReplicaMemoryGb: 8, maxReplicaMemoryGb: 32 },
      { minReplicaMemoryGb: 16, maxReplicaMemoryGb: 32 },
    ],
    [
      'idle on, keeping the timeout',
      () => vertical(),
      { kind: 'idle', enabled: true },
      { kind: 'replicaScaling', body: { idleScaling: true } },
      { idleScaling: false },
      { idleScaling: true },
    ],
    [
      'idle on after 30 minutes',
      () => vertical(),
      { kind: 'idle', enabled: true, timeoutMinutes: 30 },
      { kind: 'replicaScaling', body: { idleScaling: true, idleTimeoutMinutes: 30 } },
      { idleScaling: false, idleTimeoutMinutes: 15 },
      { idleScaling: true, idleTimeoutMinutes: 30 },
    ],
    [
      'idle on after 5 minutes, the minimum, on a service already idling after 15',
      () => dev(),
      { kind: 'idle', enabled: true, timeoutMinutes: 5 },
      { kind: 'replicaScaling', body: { idleScaling: true, idleTimeoutMinutes: 5 } },
      { idleScaling: true, idleTimeoutMinutes: 15 },
      { idleScaling: true, idleTimeoutMinutes: 5 },
    ],
    [
      'idle off',
      () => dev(),
      { kind: 'idle', enabled: false },
      { kind: 'replicaScaling', body: { idleScaling: false } },
      { idleScaling: true },
      { idleScaling: false },
    ],
    [
      'stop a running service',
      () => vertical(),
      power('stop'),
      { kind: 'state', command: 'stop' },
      { state: 'running' },
      { state: 'stopped' },
    ],
    [
      'stop an idle service',
      () => dev(),
      power('stop'),
      { kind: 'state', command: 'stop' },
      { state: 'idle' },
      { state: 'stopped' },
    ],
    [
      'stop a degraded service',
      () => vertical({ state: 'degraded' }),
      power('stop'),
      { kind: 'state', command: 'stop' },
      { state: 'degraded' },
      { state: 'stopped' },
    ],
    [
      'start a stopped service',
      () => vertical({ state: 'stopped' }),
      power('start'),
      { kind: 'state', command: 'start' },
      { state: 'stopped' },
      { state: 'running' },
    ],
    [
      'wake an idle service (the API says awake)',
      () => dev(),
      power('wake'),
      { kind: 'state', command: 'awake' },
      { state: 'idle' },
      { state: 'running' },
    ],
    [
      'stop a service whose record has no state (the API decides)',
      () => vertical({ state: undefined }),
      power('stop'),
      { kind: 'state', command: 'stop' },
      {},
      { state: 'stopped' },
    ],
  ])('%s', (_, make, target, operation, before, after) => {
    const change = planned(make(), target);
    expect(change.operation).toEqual(operation);
    expect(change.before).toEqual(before);
    expect(change.after).toEqual(after);
    expect(change.target).toEqual(target);
  });
});

describe('planning: every refusal, as sentences', () => {
  it.each<[string, () => ServiceRecord, CapacityTarget, string[]]>([
    [
      'a replica range on a vertical service',
      () => vertical(),
      replicas(2, 6),
      [
        'orders-prod scales vertically: a replica range needs horizontal autoscaling; ask for a fixed count like replicas 6.',
      ],
    ],
    [
      '0 replicas',
      () => vertical({ isPrimary: false }),
      replicas(0),
      ['Replicas must be a whole number from 1 to 20; 0 is not.'],
    ],
    ['21 replicas', () => vertical(), replicas(21), ['Replicas must be a whole number from 1 to 20; 21 is not.']],
    ['2.5 replicas', () => vertical(), replicas(2.5), ['Replicas must be a whole number from 1 to 20; 2.5 is not.']],
    [
      'a replica range beyond the bounds at both ends',
      () => horizontal({ isPrimary: false }),
      replicas(0, 25),
      [
        'Replicas must be a whole number from 1 to 20; 0 is not.',
        'Replicas must be a whole number from 1 to 20; 25 is not.',
      ],
    ],
    [
      'a replica range upside down',
      () => horizontal(),
      replicas(6, 2),
      ['A replica range runs from the smaller number to the larger: write 2-6, not 6-2.'],
    ],
    [
      'a single replica for the first service of a production warehouse',
      () => vertical(),
      replicas(1),
      ['orders-prod is the first service of its warehouse: it needs at least 2 replicas.'],
    ],
    [
      'a horizontal range starting at 1 on the first service of a warehouse',
      () => horizontal(),
      replicas(1, 4),
      ['search-prod is the first service of its warehouse: it needs at least 2 replicas.'],
    ],
    [
      'replicas on a record that does not say how it scales',
      () => vertical({ autoscalingMode: undefined, numReplicas: undefined }),
      replicas(3),
      ['orders-prod does not say whether it scales vertically or horizontally, so its replicas cannot be set.'],
    ],
    ['the replica count it already has', () => vertical(), replicas(3), ['orders-prod already runs 3 replicas.']],
    [
      'the replica range it already has',
      () => horizontal(),
      replicas(2, 6),
      ['search-prod already runs between 2 and 6 replicas.'],
    ],
    [
      'memory that is not a multiple of 4',
      () => vertical(),
      memory(10),
      ['Memory per replica must be a multiple of 4 between 8 and 356 GB; 10 is not.'],
    ],
    [
      'memory below 8 and above 356',
      () => vertical(),
      memory(4, 360),
      [
        'Memory per replica must be a multiple of 4 between 8 and 356 GB; 4 is not.',
        'Memory per replica must be a multiple of 4 between 8 and 356 GB; 360 is not.',
      ],
    ],
    [
      'a memory range upside down',
      () => vertical(),
      memory(64, 16),
      ['A memory range runs from the smaller size to the larger: write 16-64, not 64-16.'],
    ],
    [
      'a memory range on a horizontal service',
      () => horizontal(),
      memory(16, 32),
      ['search-prod scales horizontally: every replica has the same memory; ask for one size like memory 32.'],
    ],
    [
      'a size BYOC does not offer',
      () => vertical({ byocId: 'byoc-1' }),
      memory(64),
      [
        'orders-prod runs in your own cloud account (BYOC): memory per replica must be 48, 116, 172 or 232 GB; 64 is not.',
      ],
    ],
    [
      'memory on a development service',
      () => dev(),
      memory(16),
      ['sandbox-dev is a development service: memory per replica can be changed only on production services.'],
    ],
    ['the memory it already has', () => horizontal(), memory(16), ['search-prod already has 16 GB per replica.']],
    [
      'the memory range it already has',
      () => vertical(),
      memory(8, 32),
      ['orders-prod already has 8–32 GB per replica.'],
    ],
    [
      'an idle timeout under 5 minutes',
      () => vertical(),
      { kind: 'idle', enabled: true, timeoutMinutes: 3 },
      ['The idle timeout must be a whole number of minutes, at least 5; 3 is not.'],
    ],
    [
      'an idle timeout that is not whole minutes',
      () => vertical(),
      { kind: 'idle', enabled: true, timeoutMinutes: 7.5 },
      ['The idle timeout must be a whole number of minutes, at least 5; 7.5 is not.'],
    ],
    [
      'idle off when it is off',
      () => vertical(),
      { kind: 'idle', enabled: false },
      ['orders-prod already has idle scaling off.'],
    ],
    [
      'idle on with the timeout it has',
      () => dev(),
      { kind: 'idle', enabled: true, timeoutMinutes: 15 },
      ['sandbox-dev already idles after 15 minutes.'],
    ],
    [
      'idle on when it is on',
      () => dev(),
      { kind: 'idle', enabled: true },
      ['sandbox-dev already idles after 15 minutes.'],
    ],
    [
      'stop a stopped service',
      () => vertical({ name: 'staging', state: 'stopped' }),
      power('stop'),
      ['staging is already stopped.'],
    ],
    [
      'stop a stopping service',
      () => vertical({ state: 'stopping' }),
      power('stop'),
      ['orders-prod is already stopping.'],
    ],
    [
      'stop a starting service',
      () => vertical({ state: 'starting' }),
      power('stop'),
      ['orders-prod is starting: stop it once it is running.'],
    ],
    [
      'stop a failed service',
      () => vertical({ state: 'failed' }),
      power('stop'),
      ['orders-prod is failed: only a running or idle service can be stopped.'],
    ],
    ['start a running service', () => vertical(), power('start'), ['orders-prod is already running.']],
    [
      'start a starting service',
      () => vertical({ state: 'starting' }),
      power('start'),
      ['orders-prod is already starting.'],
    ],
    [
      'start an idle service',
      () => dev({ name: 'analytics staging' }),
      power('start'),
      ['analytics staging is idle, not stopped: ask for wake "analytics staging" instead.'],
    ],
    [
      'start a stopping service',
      () => vertical({ state: 'stopping' }),
      power('start'),
      ['orders-prod is stopping: start it once it has stopped.'],
    ],
    [
      'start a degraded service',
      () => vertical({ state: 'degraded' }),
      power('start'),
      ['orders-prod is degraded: only a stopped service can be started.'],
    ],
    ['wake a running service', () => vertical(), power('wake'), ['orders-prod is already running.']],
    ['wake a service waking up', () => dev({ state: 'awaking' }), power('wake'), ['sandbox-dev is already waking up.']],
    [
      'wake a stopped service',
      () => vertical({ state: 'stopped' }),
      power('wake'),
      ['orders-prod is stopped, not idle: ask for start orders-prod instead.'],
    ],
    [
      'wake a stopping service',
      () => vertical({ state: 'stopping' }),
      power('wake'),
      ['orders-prod is stopping: only an idle service can be woken.'],
    ],
    [
      'any change to a deleted service',
      () => vertical({ state: 'terminated' }),
      replicas(4),
      ['orders-prod has been deleted: it takes no changes.'],
    ],
  ])('%s', (_, make, target, expected) => {
    expect(problems(make(), target)).toEqual(expected);
  });

  it('names a service by its id when the record has no name', () => {
    expect(problems(vertical({ name: '' }), replicas(2, 4))[0]).toMatch(/^v-1 scales vertically/);
  });
});

describe('values and differences', () => {
  it('reads the mode from the record, or from its fields when it does not say', () => {
    expect(scalingModeOf(vertical())).toBe('vertical');
    expect(scalingModeOf(horizontal())).toBe('horizontal');
    expect(scalingModeOf(vertical({ autoscalingMode: undefined }))).toBe('vertical');
    expect(scalingModeOf(horizontal({ autoscalingMode: undefined }))).toBe('horizontal');
    expect(
      scalingModeOf(horizontal({ autoscalingMode: 'diagonal', minReplicas: undefined, maxReplicas: undefined })),
    ).toBeUndefined();
  });

  it('reads horizontal memory from replicaMemoryGb, and leaves out what the record does not show', () => {
    expect(capacityValuesOf(horizontal(), ['minReplicaMemoryGb', 'maxReplicaMemoryGb', 'numReplicas'])).toEqual({
      minReplicaMemoryGb: 16,
      maxReplicaMemoryGb: 16,
    });
  });

  it('finds the values a service no longer shows, counting a state on its way as the same', () => {
    const service = vertical({ numReplicas: 5, state: 'stopping' });
    expect(capacityDifferences(service, { numReplicas: 5, state: 'stopped' })).toEqual([]);
    const differences = capacityDifferences(service, { numReplicas: 6, idleScaling: true, state: 'running' });
    expect(differences).toEqual([
      { field: 'numReplicas', expected: 6, actual: 5 },
      { field: 'idleScaling', expected: true, actual: false },
      { field: 'state', expected: 'running', actual: 'stopping' },
    ]);
    expect(differencesText(differences)).toBe(
      'replicas is 5, not 6; idle scaling is off, not on; state is stopping, not running',
    );
    expect(capacityDifferences(dev(), { state: 'running' })).toEqual([]); // idle since a start: still on
  });
});

describe('revert', () => {
  it.each<[string, () => ServiceRecord, CapacityTarget, object]>([
    ['replicas on a vertical service', () => vertical(), replicas(6), { body: { numReplicas: 3 } }],
    ['replicas on a horizontal service', () => horizontal(), replicas(8), { body: { minReplicas: 2, maxReplicas: 6 } }],
    [
      'memory on a vertical service',
      () => vertical(),
      memory(64, 128),
      { body: { minReplicaMemoryGb: 8, maxReplicaMemoryGb: 32 } },
    ],
    [
      'memory on a horizontal service',
      () => horizontal(),
      memory(32),
      { body: { minReplicaMemoryGb: 16, maxReplicaMemoryGb: 16 } },
    ],
    [
      'idle on with a timeout',
      () => vertical(),
      { kind: 'idle', enabled: true, timeoutMinutes: 30 },
      { body: { idleScaling: false, idleTimeoutMinutes: 15 } },
    ],
    ['idle off', () => dev(), { kind: 'idle', enabled: false }, { body: { idleScaling: true } }],
    ['a stop', () => vertical(), power('stop'), { command: 'start' }],
    ['a start', () => vertical({ state: 'stopped' }), power('start'), { command: 'stop' }],
  ])('restores exactly what %s replaced', (_, make, target, expected) => {
    const change = planned(make(), target);
    const inverse = inverseOf(change);
    if (!inverse.ok) throw new Error(inverse.reason);
    expect(inverse.operation).toMatchObject(expected);
    if (inverse.operation.kind === 'replicaScaling') expect(inverse.restores).toEqual(change.before);
  });

  it('round-trips through the simulator: the change and then its inverse give the record back', () => {
    for (const [id, target] of [
      [DEMO_IDS.ordersProd, replicas(6)],
      [DEMO_IDS.ordersProd, memory(16, 64)],
      [DEMO_IDS.searchProd, replicas(3, 9)],
      [DEMO_IDS.searchProd, memory(24)],
      [DEMO_IDS.sandboxDev, { kind: 'idle', enabled: true, timeoutMinutes: 45 }],
      [DEMO_IDS.sandboxDev, { kind: 'idle', enabled: false }],
    ] as const) {
      const original = demoServices().find((service) => service.id === id);
      if (original === undefined) throw new Error(`no demo service ${id}`);
      const change = planned(ServiceRecordSchema.parse(original), target);
      if (change.operation.kind !== 'replicaScaling') throw new Error('expected a scaling');
      const changed = applyReplicaScaling(original, change.operation.body);
      if (!changed.ok) throw new Error(changed.message);
      const back = planRevert(ServiceRecordSchema.parse(changed.value), change);
      if (!back.ok || back.operation.kind !== 'replicaScaling') throw new Error('expected a scaling revert');
      const restored = applyReplicaScaling(changed.value, back.operation.body);
      if (!restored.ok) throw new Error(restored.message);
      expect(restored.value, `${id} ${JSON.stringify(target)}`).toEqual(original);
    }
  });

  it('does nothing when the values were changed by hand since, and says what changed', () => {
    const change = planned(vertical(), replicas(6));
    const revert = planRevert(vertical({ numReplicas: 8 }), change);
    expect(revert).toEqual({
      ok: false,
      reason: 'orders-prod was changed by hand since (replicas is 8, not 6), so the bot leaves it as it is.',
    });
    expect(planRevert(vertical({ numReplicas: 6 }), change)).toMatchObject({
      ok: true,
      operation: { kind: 'replicaScaling', body: { numReplicas: 3 } },
    });
  });

  it('stops again after a timed start, unless someone stopped it by hand already', () => {
    const change = planned(vertical({ state: 'stopped' }), power('start'));
    expect(planRevert(vertical({ state: 'running' }), change)).toMatchObject({
      ok: true,
      operation: { command: 'stop' },
    });
    expect(planRevert(vertical({ state: 'idle' }), change)).toMatchObject({ ok: true, operation: { command: 'stop' } });
    expect(planRevert(vertical({ state: 'stopped' }), change)).toMatchObject({ ok: false });
    const stop = planned(vertical(), power('stop'));
    expect(planRevert(vertical({ state: 'stopping' }), stop)).toMatchObject({
      ok: true,
      operation: { command: 'start' },
    });
  });

  it('has no inverse for a wake, nor for a value the record did not show', () => {
    expect(inverseOf(planned(dev(), power('wake')))).toEqual({
      ok: false,
      reason: 'A woken service goes idle again by itself after its idle timeout: there is nothing to undo.',
    });
    const unknownTimeout = planned(vertical({ idleTimeoutMinutes: undefined }), {
      kind: 'idle',
      enabled: true,
      timeoutMinutes: 30,
    });
    expect(inverseOf(unknownTimeout)).toEqual({
      ok: false,
      reason: 'The service did not show its previous idleTimeoutMinutes, so there is no exact value to restore.',
    });
  });

  it('refuses to send back a previous value the API would refuse', () => {
    const oddBefore = planned(vertical({ idleTimeoutMinutes: 2 }), { kind: 'idle', enabled: true, timeoutMinutes: 30 });
    const inverse = inverseOf(oddBefore);
    expect(inverse.ok).toBe(false);
    if (!inverse.ok)
      expect(inverse.reason).toMatch(/^The previous values cannot be sent back to the API \(idleTimeoutMinutes/);
  });
});

describe('an idle timeout sent with idle scaling off (the modal)', () => {
  it('is refused in the same sentence as with idle scaling on, not in the schema’s words', () => {
    const ordersProd = ServiceRecordSchema.parse(demoServices().find((s) => s.id === DEMO_IDS.ordersProd));
    expect(planCapacityChange(ordersProd, { kind: 'idle', enabled: false, timeoutMinutes: 3 })).toStrictEqual({
      ok: false,
      problems: ['The idle timeout must be a whole number of minutes, at least 5; 3 is not.'],
    });
  });
});
