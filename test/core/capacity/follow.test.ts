import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FOLLOW,
  followDelays,
  followReadTimes,
  followTarget,
  progressOf,
  sameProgress,
  type Progress,
} from '../../../src/core/capacity/follow.js';
import type { CapacityTarget } from '../../../src/core/capacity/plan.js';
import type { Operation } from '../../../src/core/change/types.js';
import { planned, vertical } from './records.js';

const record = (overrides: Record<string, unknown> = {}) =>
  vertical({ idleScaling: true, isPrimary: false, ...overrides });

const stop: Operation = { endpoint: 'state', body: { command: 'stop' }, expect: { state: 'stopped' } };
const start: Operation = { endpoint: 'state', body: { command: 'start' }, expect: { state: 'running' } };
const awake: Operation = { endpoint: 'state', body: { command: 'awake' }, expect: { state: 'running' } };
const scale: Operation = { endpoint: 'replicaScaling', body: { numReplicas: 5 }, expect: { numReplicas: 5 } };
const rename: Operation = { endpoint: 'update', body: { name: 'orders-next' } };

describe('progress of a change', () => {
  it.each<[string, CapacityTarget, Record<string, unknown>, Record<string, unknown>, string]>([
    ['stop, still stopping', { kind: 'power', action: 'stop' }, {}, { state: 'stopping' }, 'moving'],
    ['stop, stopped', { kind: 'power', action: 'stop' }, {}, { state: 'stopped' }, 'settled'],
    ['stop, running again', { kind: 'power', action: 'stop' }, {}, { state: 'running' }, 'elsewhere'],
    ['stop, failed', { kind: 'power', action: 'stop' }, {}, { state: 'failed' }, 'elsewhere'],
    ['start, starting', { kind: 'power', action: 'start' }, { state: 'stopped' }, { state: 'starting' }, 'moving'],
    ['start, running', { kind: 'power', action: 'start' }, { state: 'stopped' }, { state: 'running' }, 'settled'],
    ['start, idle already', { kind: 'power', action: 'start' }, { state: 'stopped' }, { state: 'idle' }, 'settled'],
    [
      'start, stopped again',
      { kind: 'power', action: 'start' },
      { state: 'stopped' },
      { state: 'stopped' },
      'elsewhere',
    ],
    ['wake, awaking', { kind: 'power', action: 'wake' }, { state: 'idle' }, { state: 'awaking' }, 'moving'],
    ['wake, running', { kind: 'power', action: 'wake' }, { state: 'idle' }, { state: 'running' }, 'settled'],
    ['stop, a record without a state', { kind: 'power', action: 'stop' }, {}, { state: undefined }, 'moving'],
    ['replicas, shown', { kind: 'replicas', min: 5, max: 5 }, {}, { numReplicas: 5 }, 'settled'],
    ['replicas, not shown yet', { kind: 'replicas', min: 5, max: 5 }, {}, {}, 'moving'],
    ['idle off, shown', { kind: 'idle', enabled: false }, {}, { idleScaling: false }, 'settled'],
  ])('%s', (_, target, before, now, kind) => {
    expect(progressOf(planned(record(before), target).after, record({ ...before, ...now })).kind).toBe(kind);
  });
});

describe('following a request from its operations', () => {
  it('follows what its replicaScaling and state operations expect, later over earlier, and nothing for an update alone', () => {
    expect(followTarget([rename])).toBeUndefined();
    expect(followTarget([])).toBeUndefined();
    expect(followTarget([stop])).toEqual({ state: 'stopped' });
    expect(followTarget([rename, scale])).toEqual({ numReplicas: 5 });
    expect(followTarget([scale, start])).toEqual({ numReplicas: 5, state: 'running' });
    expect(followTarget([stop, start])).toEqual({ state: 'running' });
  });

  /** Each path a state can take after the API accepted, read after read. */
  const paths: Array<
    [string, Operation[], Record<string, unknown>, Array<[Record<string, unknown>, Progress['kind']]>]
  > = [
    [
      'stop: stopping, then stopped',
      [stop],
      { state: 'running' },
      [
        [{ state: 'stopping' }, 'moving'],
        [{ state: 'stopping' }, 'moving'],
        [{ state: 'stopped' }, 'settled'],
      ],
    ],
    [
      'start: starting, then running',
      [start],
      { state: 'stopped' },
      [
        [{ state: 'starting' }, 'moving'],
        [{ state: 'running' }, 'settled'],
      ],
    ],
    [
      'wake: waking up, then running',
      [awake],
      { state: 'idle' },
      [
        [{ state: 'awaking' }, 'moving'],
        [{ state: 'running' }, 'settled'],
      ],
    ],
    [
      'wake: idle again by itself before the first read (it did wake)',
      [awake],
      { state: 'idle' },
      [[{ state: 'idle' }, 'settled']],
    ],
    [
      'scaling: visible only later',
      [scale],
      { numReplicas: 3 },
      [
        [{ numReplicas: 3 }, 'moving'],
        [{ numReplicas: 3 }, 'moving'],
        [{ numReplicas: 5 }, 'settled'],
      ],
    ],
    [
      'scaling and start: running first, the replicas after',
      [scale, start],
      { state: 'stopped', numReplicas: 3 },
      [
        [{ state: 'starting', numReplicas: 3 }, 'moving'],
        [{ state: 'running', numReplicas: 3 }, 'moving'],
        [{ state: 'running', numReplicas: 5 }, 'settled'],
      ],
    ],
    [
      'stop: failed on the way',
      [stop],
      { state: 'running' },
      [
        [{ state: 'stopping' }, 'moving'],
        [{ state: 'failed' }, 'elsewhere'],
      ],
    ],
    [
      'start: stopped again by hand',
      [start],
      { state: 'stopped' },
      [
        [{ state: 'starting' }, 'moving'],
        [{ state: 'stopping' }, 'elsewhere'],
      ],
    ],
    [
      'stop: never settles',
      [stop],
      { state: 'running' },
      Array.from(
        { length: 20 },
        () => [{ state: 'stopping' }, 'moving'] as [Record<string, unknown>, Progress['kind']],
      ),
    ],
  ];

  it.each(paths)('%s', (_, operations, before, reads) => {
    const target = followTarget(operations);
    if (!target) throw new Error('no target');
    expect(reads.map(([now]) => progressOf(target, record({ ...before, ...now })).kind)).toEqual(
      reads.map(([, kind]) => kind),
    );
  });

  it('says which values a scaling does not show yet', () => {
    expect(progressOf({ numReplicas: 5 }, record({ numReplicas: 3 }))).toEqual({
      kind: 'moving',
      state: 'running',
      missing: [{ field: 'numReplicas', expected: 5, actual: 3 }],
    });
  });

  it('calls a service the organization no longer has gone', () => {
    expect(progressOf({ state: 'stopped' }, undefined)).toEqual({ kind: 'elsewhere', state: undefined, gone: true });
  });

  it('tells a new reading from the same one again', () => {
    const stopping = progressOf({ state: 'stopped' }, record({ state: 'stopping' }));
    expect(sameProgress(stopping, progressOf({ state: 'stopped' }, record({ state: 'stopping' })))).toBe(true);
    expect(sameProgress(stopping, progressOf({ state: 'stopped' }, record({ state: 'stopped' })))).toBe(false);
    expect(sameProgress(undefined, stopping)).toBe(false);
    const three = progressOf({ numReplicas: 5 }, record({ numReplicas: 3 }));
    expect(sameProgress(three, progressOf({ numReplicas: 5 }, record({ numReplicas: 4 })))).toBe(false);
    expect(sameProgress(three, progressOf({ numReplicas: 5 }, record({ numReplicas: 3 })))).toBe(true);
  });
});

describe('follow schedule', () => {
  it('reads soon, then less often, never more than every 30 s, within 10 minutes', () => {
    const delays = followDelays();
    expect(delays.slice(0, 4)).toEqual([2_000, 3_000, 4_500, 6_750]);
    expect(Math.max(...delays)).toBe(DEFAULT_FOLLOW.maxMs);
    expect(delays.reduce((sum, wait) => sum + wait, 0)).toBeLessThanOrEqual(DEFAULT_FOLLOW.totalMs);
    expect(delays.length).toBeLessThan(30);
  });

  it('fits a demo schedule of a few seconds', () => {
    expect(followDelays({ firstMs: 500, factor: 2, maxMs: 1_000, totalMs: 3_000 })).toEqual([500, 1_000, 1_000]);
    expect(followReadTimes({ firstMs: 500, factor: 2, maxMs: 1_000, totalMs: 3_000 })).toEqual([500, 1_500, 2_500]);
  });
});
