import { describe, expect, it } from 'vitest';
import { DEFAULT_FOLLOW, followDelays, progressOf } from '../../../src/core/capacity/follow.js';
import type { CapacityTarget } from '../../../src/core/capacity/plan.js';
import { planned, vertical } from './records.js';

const record = (overrides: Record<string, unknown> = {}) =>
  vertical({ idleScaling: true, isPrimary: false, ...overrides });

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
    expect(progressOf(planned(record(before), target), record({ ...before, ...now })).kind).toBe(kind);
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
  });
});
