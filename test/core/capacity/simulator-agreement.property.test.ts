/**
 * Property: the bot's capacity planning and the simulator's API rules agree. For generated targets
 * on every demo service (and a BYOC one), whatever the plan sends, the simulator accepts; whatever
 * the simulator refuses, the plan refused first; and the plan's inverse gives the record back.
 * (The converse does not hold, on purpose: the plan also refuses requests that change nothing.)
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planCapacityChange, type CapacityTarget } from '../../../src/core/capacity/plan.js';
import { inverseOf } from '../../../src/core/capacity/revert.js';
import { ServiceRecordSchema } from '../../../src/core/service/schema.js';
import { applyReplicaScaling, stateTransition } from '../../../src/simulator/capacity.js';
import { DEMO_IDS, demoServiceId, demoServices } from '../../../src/simulator/seed.js';
import type { ServiceRecordLike } from '../../../src/simulator/state.js';

const ordersProd = demoServices().find((service) => service.id === DEMO_IDS.ordersProd) as ServiceRecordLike;
/** A BYOC service, made consistent (totals, currentScaling) by the simulator's own rules. */
function byoc(): ServiceRecordLike {
  const base = { ...ordersProd, id: demoServiceId(1), name: 'byoc-prod', byocId: 'byoc-1' };
  const sized = applyReplicaScaling(base, { minReplicaMemoryGb: 48, maxReplicaMemoryGb: 116 });
  if (!sized.ok) throw new Error(sized.message);
  return sized.value;
}
const records: ServiceRecordLike[] = [...demoServices(), byoc()];

const count = fc.integer({ min: -1, max: 22 });
const memoryGb = fc.oneof(
  fc.integer({ min: 0, max: 90 }).map((n) => n * 4),
  fc.integer({ min: 0, max: 400 }),
);
const target: fc.Arbitrary<CapacityTarget> = fc.oneof(
  fc.tuple(count, count).map(([min, max]) => ({ kind: 'replicas' as const, min, max })),
  count.map((n) => ({ kind: 'replicas' as const, min: n, max: n })),
  fc.tuple(memoryGb, memoryGb).map(([minGb, maxGb]) => ({ kind: 'memory' as const, minGb, maxGb })),
  memoryGb.map((gb) => ({ kind: 'memory' as const, minGb: gb, maxGb: gb })),
  fc
    .option(fc.integer({ min: 0, max: 120 }), { nil: undefined })
    .map((timeoutMinutes) =>
      timeoutMinutes === undefined
        ? { kind: 'idle' as const, enabled: true as const }
        : { kind: 'idle' as const, enabled: true as const, timeoutMinutes },
    ),
  fc.constant({ kind: 'idle' as const, enabled: false as const }),
  fc.constantFrom('stop', 'start', 'wake').map((action) => ({ kind: 'power' as const, action })),
);

describe('capacity planning agrees with the simulator', () => {
  it('never sends what the simulator refuses, and its inverse restores the record', () => {
    fc.assert(
      fc.property(fc.constantFrom(...records), target, (record, wanted) => {
        const plan = planCapacityChange(ServiceRecordSchema.parse(record), wanted);
        if (!plan.ok) {
          expect(plan.problems.length).toBeGreaterThan(0);
          for (const problem of plan.problems) expect(problem).toMatch(/^[A-Z0-9a-z"`].*\.$/);
          return;
        }
        const { operation } = plan.change;
        if (operation.kind === 'state') {
          expect(stateTransition(record, operation.command).ok).toBe(true);
          return;
        }
        const applied = applyReplicaScaling(record, operation.body);
        if (!applied.ok) throw new Error(`the simulator refused ${JSON.stringify(operation.body)}: ${applied.message}`);
        const inverse = inverseOf(plan.change);
        if (!inverse.ok || inverse.operation.kind !== 'replicaScaling') return;
        const restored = applyReplicaScaling(applied.value, inverse.operation.body);
        if (!restored.ok) throw new Error(`the simulator refused the inverse: ${restored.message}`);
        expect(restored.value).toEqual(record);
      }),
      { numRuns: 2_000, seed: 24 },
    );
  });
});
