import { describe, expect, it } from 'vitest';
import { summaryTotals } from '../../../src/core/summary/index.js';
import { service } from '../fixtures.js';

describe('summaryTotals', () => {
  const services = [
    // 3 × 8–16 GB; the deprecated totals (three workers) happen to agree here.
    service({
      id: 'a',
      state: 'running',
      releaseChannel: 'default',
      numReplicas: 3,
      minTotalMemoryGb: 24,
      maxTotalMemoryGb: 48,
    }),
    // 2 × 8 GB, but the deprecated totals still describe three workers: 24 GB, which must not count.
    service({
      id: 'b',
      state: 'running',
      releaseChannel: 'fast',
      numReplicas: 2,
      minReplicaMemoryGb: 8,
      maxReplicaMemoryGb: 8,
      minTotalMemoryGb: 24,
      maxTotalMemoryGb: 24,
      ipAccessList: [{ source: '0.0.0.0/0' }],
    }),
    // Horizontal: 2–6 × 16 GB, no total fields.
    service({
      id: 'c',
      state: 'idle',
      releaseChannel: 'default',
      autoscalingMode: 'horizontal',
      numReplicas: undefined,
      minReplicas: 2,
      maxReplicas: 6,
      minReplicaMemoryGb: undefined,
      maxReplicaMemoryGb: undefined,
      replicaMemoryGb: 16,
      minTotalMemoryGb: undefined,
      maxTotalMemoryGb: undefined,
      ipAccessList: [{ source: '::/0' }],
      hasTransparentDataEncryption: false,
    }),
  ];
  const totals = summaryTotals(services);

  it('counts services, by state and by release channel', () => {
    expect(totals.services).toBe(3);
    expect(totals.byState).toStrictEqual(
      new Map([
        ['running', 2],
        ['idle', 1],
      ]),
    );
    expect(totals.byReleaseChannel).toStrictEqual(
      new Map([
        ['default', 2],
        ['fast', 1],
      ]),
    );
  });

  it('adds replicas, as a range when a service only gives min and max', () => {
    expect(totals.replicas).toStrictEqual({ min: 7, max: 11 });
    expect(totals.servicesWithoutReplicas).toBe(0);
  });

  it('adds per-replica memory x replicas, horizontal services included, never the deprecated totals', () => {
    // 24–48 + 16 + 32–96
    expect(totals.memoryGb).toStrictEqual({ min: 72, max: 160 });
    expect(totals.servicesWithoutMemory).toBe(0);
    expect(totals.servicesScaledNow).toBe(0);
    expect(totals.memoryGbNow).toStrictEqual(totals.memoryGb);
  });

  it('counts a service without per-replica memory as not reporting, whatever its deprecated totals say', () => {
    const old = summaryTotals([service({ minReplicaMemoryGb: undefined, maxReplicaMemoryGb: undefined })]);
    expect(old.memoryGb).toBeUndefined();
    expect(old.servicesWithoutMemory).toBe(1);
  });

  it('adds what runs now next to the baseline when a scaling schedule is active', () => {
    const scaled = service({
      id: 'd',
      numReplicas: 3,
      minReplicaMemoryGb: 8,
      maxReplicaMemoryGb: 8,
      currentScaling: {
        effectiveAutoscalingMode: 'vertical',
        effectiveMinReplicas: 2,
        effectiveMaxReplicas: 2,
        effectiveMinReplicaMemoryGb: 16,
        effectiveMaxReplicaMemoryGb: 16,
      },
    });
    const withSchedule = summaryTotals([...services, scaled]);
    expect(withSchedule.memoryGb).toStrictEqual({ min: 96, max: 184 });
    expect(withSchedule.memoryGbNow).toStrictEqual({ min: 104, max: 192 });
    expect(withSchedule.replicas).toStrictEqual({ min: 10, max: 14 });
    expect(withSchedule.replicasNow).toStrictEqual({ min: 9, max: 13 });
    expect(withSchedule.servicesScaledNow).toBe(1);
  });

  it('counts posture findings by code, and the services that have any', () => {
    expect(totals.findings).toStrictEqual(new Map([['open-to-world', { label: 'open to the internet', count: 2 }]]));
    expect(totals.findingCount).toBe(2);
    expect(totals.servicesWithFindings).toBe(2);
  });

  it('leaves state and channel counts empty when the records carry neither', () => {
    const bare = summaryTotals([
      service({
        state: undefined,
        releaseChannel: undefined,
        numReplicas: undefined,
        minTotalMemoryGb: undefined,
        maxTotalMemoryGb: undefined,
      }),
    ]);
    expect(bare.byState.size).toBe(0);
    expect(bare.byReleaseChannel.size).toBe(0);
    expect(bare.replicas).toBeUndefined();
    expect(bare.memoryGb).toBeUndefined();
    expect(bare.servicesWithoutMemory).toBe(1);
  });

  it('uses findings computed once by the caller instead of recomputing them', () => {
    const given = new Map([
      ['a', [{ code: 'mysql-enabled' as const, label: 'MySQL endpoint on', detail: 'MySQL endpoint is enabled.' }]],
    ]);
    expect(summaryTotals(services, given).findings).toStrictEqual(
      new Map([['mysql-enabled', { label: 'MySQL endpoint on', count: 1 }]]),
    );
  });
});
