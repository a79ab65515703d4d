/**
 * LiveLoadReader (approval/live-load.ts): one read per service per reuse window whatever it came
 * to, shared by organization and service; a request waits for it only up to the bound.
 */
import { describe, expect, it } from 'vitest';
import { LiveLoadReader } from '../../src/approval/live-load.js';
import type { ChangePlan } from '../../src/core/change/types.js';
import { CloudApiError } from '../../src/core/service/api-error.js';
import type { ServiceLoad } from '../../src/core/service/load.js';
import type { ServiceRecord } from '../../src/core/service/schema.js';
import type { ServiceDirectory } from '../../src/ports/index.js';

const GIB = 1024 ** 3;
const service: ServiceRecord = { id: 'svc-1', name: 'orders', state: 'running', maxReplicaMemoryGb: 32 };
const stopPlan = {
  serviceId: 'svc-1',
  serviceName: 'orders',
  update: {},
  operations: [{ endpoint: 'state', body: { command: 'stop' }, expect: { state: 'stopped' } }],
  changes: [],
  warnings: [],
  before: {},
} satisfies ChangePlan;
const renamePlan: ChangePlan = { ...stopPlan, operations: [], update: { name: 'x' } };
const load: ServiceLoad = { queries: 4, replicas: [{ hostname: 'a', memoryBytes: 10 * GIB }], partial: false };

function directory(answer: () => Promise<ServiceLoad>) {
  const reads: string[] = [];
  const cloud = {
    readLoad: (id: string) => {
      reads.push(id);
      return answer();
    },
  } as unknown as ServiceDirectory;
  return { cloud, reads };
}

describe('LiveLoadReader', () => {
  it('reads once per service within the reuse window, and again after it', async () => {
    let now = 1_000_000;
    const { cloud, reads } = directory(() => Promise.resolve(load));
    const reader = new LiveLoadReader({ cloudOf: () => cloud, now: () => now });
    const ask = { plan: stopPlan, service, person: 'U1' };
    const notes = await Promise.all([reader.noteFor(ask), reader.noteFor({ ...ask, person: 'U2' })]);
    now += 29_000;
    await reader.noteFor(ask);
    expect(reads).toHaveLength(1);
    expect(notes[0]).toMatchObject({ kind: 'read', queries: 4, busiestMemoryBytes: 10 * GIB, replicaSizeGb: 32 });
    // Another organization's service of the same id is another service.
    await reader.noteFor({ ...ask, organization: 'other' });
    expect(reads).toHaveLength(2);
    now += 1_000;
    await reader.noteFor(ask);
    expect(reads).toHaveLength(3);
  });

  it('keeps a failure for the window too, as a reason, never a thrown error', async () => {
    const { cloud, reads } = directory(() => Promise.reject(new CloudApiError('http', 'forbidden', { status: 403 })));
    const reader = new LiveLoadReader({ cloudOf: () => cloud, now: () => 5 });
    const ask = { plan: stopPlan, service, person: 'U1' };
    expect(await reader.noteFor(ask)).toStrictEqual({ kind: 'failed', why: 'http', status: 403 });
    expect(await reader.noteFor(ask)).toStrictEqual({ kind: 'failed', why: 'http', status: 403 });
    expect(reads).toHaveLength(1);
  });

  it('waits no longer than the bound; the late answer serves the next request', async () => {
    let release: (value: ServiceLoad) => void = () => undefined;
    const late = new Promise<ServiceLoad>((resolve) => (release = resolve));
    const { cloud, reads } = directory(() => late);
    const reader = new LiveLoadReader({ cloudOf: () => cloud, now: () => 5, boundMs: 50 });
    const ask = { plan: stopPlan, service, person: 'U1' };
    const started = performance.now();
    expect(await reader.noteFor(ask)).toStrictEqual({ kind: 'failed', why: 'slow', afterMs: 50 });
    expect(performance.now() - started).toBeLessThan(1_000);
    release(load);
    expect(await reader.noteFor(ask)).toMatchObject({ kind: 'read', queries: 4 });
    expect(reads).toHaveLength(1);
  });

  it('reads nothing for a plan that risks nothing, or a service that is not running', async () => {
    const { cloud, reads } = directory(() => Promise.resolve(load));
    const reader = new LiveLoadReader({ cloudOf: () => cloud, now: () => 5 });
    expect(await reader.noteFor({ plan: renamePlan, service, person: 'U1' })).toBeUndefined();
    for (const state of ['idle', 'stopped', 'stopping'])
      expect(await reader.noteFor({ plan: stopPlan, service: { ...service, state }, person: 'U1' })).toBeUndefined();
    expect(reads).toStrictEqual([]);
  });
});
