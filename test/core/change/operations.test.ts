/** A request's operations: legacy requests send their update; capacity operations are verified by what the service shows. */
import { describe, expect, it } from 'vitest';
import { allOperationsVisible, operationsOf, operationVisible } from '../../../src/core/change/operations.js';
import type { ChangePlan, Operation } from '../../../src/core/change/types.js';
import { service } from '../fixtures.js';

const plan = (update: ChangePlan['update'], operations?: Operation[]): ChangePlan => ({
  serviceId: 'svc',
  serviceName: 'orders-prod',
  update,
  ...(operations ? { operations } : {}),
  changes: [],
  warnings: [],
  before: {},
});

describe('operations of a request', () => {
  it('a request stored before operations existed is one update operation, or none for an extension', () => {
    expect(operationsOf(plan({ name: 'x' }))).toEqual([{ endpoint: 'update', body: { name: 'x' } }]);
    expect(operationsOf(plan({}))).toEqual([]);
  });

  it('a scaling operation is shown once the service has the values it expects', () => {
    const scale: Operation = { endpoint: 'replicaScaling', body: { numReplicas: 5 }, expect: { numReplicas: 5 } };
    expect(operationVisible(scale, plan({}), service({ numReplicas: 3 }))).toBe(false);
    expect(operationVisible(scale, plan({}), service({ numReplicas: 5 }))).toBe(true);
  });

  it('a stop is shown while the service is stopping, as well as once stopped', () => {
    const stop: Operation = { endpoint: 'state', body: { command: 'stop' }, expect: { state: 'stopped' } };
    expect(operationVisible(stop, plan({}), service({ state: 'running' }))).toBe(false);
    expect(operationVisible(stop, plan({}), service({ state: 'stopping' }))).toBe(true);
    expect(operationVisible(stop, plan({}), service({ state: 'stopped' }))).toBe(true);
  });

  it('a request of two operations is shown only when both are', () => {
    const both = plan({ name: 'orders-next' }, [
      { endpoint: 'update', body: { name: 'orders-next' } },
      { endpoint: 'replicaScaling', body: { numReplicas: 5 }, expect: { numReplicas: 5 } },
    ]);
    expect(allOperationsVisible(both, service({ name: 'orders-next', numReplicas: 3 }))).toBe(false);
    expect(allOperationsVisible(both, service({ name: 'orders-next', numReplicas: 5 }))).toBe(true);
  });
});
