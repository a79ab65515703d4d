/**
 * Replicas and memory from records shaped as the official API document describes them: vertical
 * services carry numReplicas and a per-replica range (plus the deprecated three-worker totals on
 * older records), horizontal ones minReplicas..maxReplicas and replicaMemoryGb, and current
 * records a currentScaling block.
 */
import { describe, expect, it } from 'vitest';
import { ServiceRecordSchema } from '../../../src/core/service/schema.js';
import { serviceBlocks, serviceLine } from '../../../src/core/render/service.js';
import { baselineCapacity, capacityPhrase, currentCapacity } from '../../../src/core/service/capacity.js';
import { serviceSummaryLine, summaryMessages } from '../../../src/core/summary/index.js';
import { mrkdwnTexts } from '../render/block-kit.js';
import { NOW } from '../fixtures.js';

const ID = '7c1f9a2e-4b3d-4e8a-9f60-2d5b8c1e0a47';

/** A vertical record; `deprecatedTotals` adds what the API still sends: three workers' worth. */
function vertical(replicas: number, min: number, max: number, deprecatedTotals = true) {
  return ServiceRecordSchema.parse({
    id: ID,
    name: `v${replicas}`,
    state: 'running',
    autoscalingMode: 'vertical',
    numReplicas: replicas,
    minReplicaMemoryGb: min,
    maxReplicaMemoryGb: max,
    ...(deprecatedTotals ? { minTotalMemoryGb: min * 3, maxTotalMemoryGb: max * 3 } : {}),
  });
}

function horizontal(minReplicas: number, maxReplicas: number, memory: Record<string, number>) {
  return ServiceRecordSchema.parse({
    id: ID,
    name: `h${minReplicas}-${maxReplicas}`,
    state: 'running',
    autoscalingMode: 'horizontal',
    minReplicas,
    maxReplicas,
    ...memory,
  });
}

describe('vertical services', () => {
  it.each([
    [1, 8, 32, '1 × 8–32 GB', { min: 8, max: 32 }],
    [2, 8, 32, '2 × 8–32 GB', { min: 16, max: 64 }],
    [3, 8, 32, '3 × 8–32 GB', { min: 24, max: 96 }],
    [20, 16, 120, '20 × 16–120 GB', { min: 320, max: 2400 }],
  ] as const)(
    '%i replicas of %i–%i GB read %j, %j in total, whatever the deprecated totals say',
    (replicas, min, max, text, total) => {
      for (const withTotals of [true, false]) {
        const record = vertical(replicas, min, max, withTotals);
        expect(capacityPhrase(record)).toBe(text);
        expect(baselineCapacity(record).totalMemoryGb).toStrictEqual(total);
        expect(serviceLine(record)).toContain(text);
      }
    },
  );

  it('shows a single replica of 8 GB as 8 GB, not the 24 GB of the deprecated totals', () => {
    const record = vertical(1, 8, 8);
    expect(record.minTotalMemoryGb).toBe(24);
    const text = mrkdwnTexts(serviceBlocks(record)).join('\n');
    expect(text).toContain('*Replicas*\n1 (vertical autoscaling)');
    expect(text).toContain('*Memory*\n8 GB per replica, 8 GB in total');
    expect(text).not.toContain('24');
  });

  it('tells what it knows when the record gives only replicas or only memory', () => {
    expect(capacityPhrase(ServiceRecordSchema.parse({ id: ID, numReplicas: 1 }))).toBe('1 replica');
    expect(capacityPhrase(ServiceRecordSchema.parse({ id: ID, numReplicas: 20 }))).toBe('20 replicas');
    expect(
      capacityPhrase(
        ServiceRecordSchema.parse({
          id: ID,
          minReplicaMemoryGb: 4,
          maxReplicaMemoryGb: 8,
          autoscalingMode: 'vertical',
        }),
      ),
    ).toBe('4–8 GB per replica');
    expect(
      capacityPhrase(ServiceRecordSchema.parse({ id: ID, minTotalMemoryGb: 24, maxTotalMemoryGb: 96 })),
    ).toBeUndefined();
  });
});

describe('horizontal services', () => {
  it('counts replicaMemoryGb x minReplicas..maxReplicas', () => {
    const record = horizontal(2, 6, { replicaMemoryGb: 16 });
    expect(capacityPhrase(record)).toBe('2–6 × 16 GB');
    expect(baselineCapacity(record).totalMemoryGb).toStrictEqual({ min: 32, max: 96 });
    const text = mrkdwnTexts(serviceBlocks(record)).join('\n');
    expect(text).toContain('*Replicas*\n2–6 (horizontal autoscaling)');
    expect(text).toContain('*Memory*\n16 GB per replica, 32–96 GB in total');
  });

  it('reads equal per-replica bounds as the replica size', () => {
    const record = horizontal(1, 20, { minReplicaMemoryGb: 24, maxReplicaMemoryGb: 24 });
    expect(capacityPhrase(record)).toBe('1–20 × 24 GB');
    expect(baselineCapacity(record).totalMemoryGb).toStrictEqual({ min: 24, max: 480 });
  });

  it('is counted in the summary instead of "not reporting"', () => {
    const { headline } = summaryMessages({
      services: [horizontal(2, 6, { replicaMemoryGb: 16 })],
      filters: [],
      drift: undefined,
      generatedAt: NOW,
    });
    const text = mrkdwnTexts(headline.blocks).join('\n');
    expect(text).toContain('*Memory*\n32–96 GB');
    expect(text).toContain('*Replicas*\n2–6');
    expect(text).not.toContain('not reporting');
  });
});

describe('currentScaling', () => {
  const scheduled = (currentScaling: Record<string, unknown>) =>
    ServiceRecordSchema.parse({ ...vertical(3, 8, 8), currentScaling });

  it('says both what runs now and the baseline when a scaling schedule is active', () => {
    const record = scheduled({
      effectiveAutoscalingMode: 'vertical',
      effectiveMinReplicas: 2,
      effectiveMaxReplicas: 2,
      effectiveMinReplicaMemoryGb: 16,
      effectiveMaxReplicaMemoryGb: 16,
    });
    expect(capacityPhrase(record)).toBe('now 2 × 16 GB, base 3 × 8 GB');
    expect(serviceLine(record)).toContain('now 2 × 16 GB, base 3 × 8 GB');
    expect(serviceSummaryLine(record)).toContain('now 2 × 16 GB, base 3 × 8 GB');
    const show = mrkdwnTexts(serviceBlocks(record)).join('\n');
    expect(show).toContain('*Scaling now*\n:arrows_counterclockwise: now 2 × 16 GB, base 3 × 8 GB');
    // With the entry in force (show reads the schedule while one is), its name and end.
    const named = mrkdwnTexts(
      serviceBlocks(record, undefined, { activeEntry: { name: 'business hours', endHourUtc: 18 } }),
    ).join('\n');
    expect(named).toContain(
      "*Scaling now*\n:arrows_counterclockwise: now 2 × 16 GB (schedule 'business hours' until 18:00 UTC), base 3 × 8 GB",
    );
    expect(show).toContain('*Memory*\n8 GB per replica, 24 GB in total');
  });

  it('says it once when currentScaling matches the baseline', () => {
    const record = scheduled({
      effectiveAutoscalingMode: 'vertical',
      effectiveMinReplicas: 3,
      effectiveMaxReplicas: 3,
      effectiveMinReplicaMemoryGb: 8,
      effectiveMaxReplicaMemoryGb: 8,
    });
    expect(currentCapacity(record)).toBeUndefined();
    expect(capacityPhrase(record)).toBe('3 × 8 GB');
    expect(mrkdwnTexts(serviceBlocks(record)).join('\n')).not.toContain('Scaling now');
  });

  it('fills what currentScaling leaves out from the baseline', () => {
    expect(capacityPhrase(scheduled({ effectiveMinReplicas: 20, effectiveMaxReplicas: 20 }))).toBe(
      'now 20 × 8 GB, base 3 × 8 GB',
    );
  });

  it('ignores a currentScaling block that is not an object', () => {
    expect(capacityPhrase(scheduled('soon' as unknown as Record<string, unknown>))).toBe('3 × 8 GB');
  });

  it('puts what runs now next to the baseline totals in the summary headline', () => {
    const record = scheduled({
      effectiveMinReplicas: 2,
      effectiveMaxReplicas: 2,
      effectiveMinReplicaMemoryGb: 16,
      effectiveMaxReplicaMemoryGb: 16,
    });
    const { headline } = summaryMessages({ services: [record], filters: [], drift: undefined, generatedAt: NOW });
    const text = mrkdwnTexts(headline.blocks).join('\n');
    expect(text).toContain('*Memory*\n24 GB\n:arrows_counterclockwise: now 32 GB _(1 scaling schedule active)_');
    expect(text).toContain('*Replicas*\n3\n:arrows_counterclockwise: now 2 _(1 scaling schedule active)_');
  });
});
