import { describe, expect, it } from 'vitest';
import { ReplicaScalingUpdateSchema, StateCommandSchema } from '../../../src/core/service/schema.js';

/** The paths of the issues, so a refusal names the field it is about. */
function refusedFields(body: unknown): string[] {
  const parsed = ReplicaScalingUpdateSchema.safeParse(body);
  if (parsed.success) throw new Error(`expected ${JSON.stringify(body)} to be refused`);
  return parsed.error.issues.map((issue) => issue.path.join('.'));
}

describe('ReplicaScalingUpdate (PATCH …/replicaScaling body)', () => {
  it.each([
    [{ numReplicas: 1 }],
    [{ numReplicas: 20 }],
    [{ minReplicas: 2, maxReplicas: 6 }],
    [{ minReplicas: 4, maxReplicas: 4 }],
    [{ minReplicaMemoryGb: 8, maxReplicaMemoryGb: 356 }],
    [{ minReplicaMemoryGb: 48 }],
    [{ idleScaling: true, idleTimeoutMinutes: 5 }],
    [{ idleScaling: false }],
    [{ autoscalingMode: 'horizontal', minReplicas: 2, maxReplicas: 4 }],
    [{}],
  ])('accepts %j', (body) => {
    expect(ReplicaScalingUpdateSchema.parse(body)).toEqual(body);
  });

  it.each<[unknown, string[]]>([
    [{ numReplicas: 0 }, ['numReplicas']],
    [{ numReplicas: 21 }, ['numReplicas']],
    [{ numReplicas: 1.5 }, ['numReplicas']],
    [{ minReplicas: 1, maxReplicas: 21 }, ['maxReplicas']],
    [{ minReplicaMemoryGb: 4 }, ['minReplicaMemoryGb']],
    [{ maxReplicaMemoryGb: 360 }, ['maxReplicaMemoryGb']],
    [{ maxReplicaMemoryGb: 10 }, ['maxReplicaMemoryGb']],
    [{ idleTimeoutMinutes: 4 }, ['idleTimeoutMinutes']],
    [{ idleTimeoutMinutes: 5.5 }, ['idleTimeoutMinutes']],
    [{ autoscalingMode: 'diagonal' }, ['autoscalingMode']],
    [{ minTotalMemoryGb: 24 }, ['']],
    [{ numReplicas: 3, minReplicas: 3, maxReplicas: 3 }, ['numReplicas']],
    [{ minReplicas: 3 }, ['maxReplicas']],
    [{ maxReplicas: 3 }, ['minReplicas']],
    [{ minReplicas: 6, maxReplicas: 2 }, ['minReplicas']],
    [{ minReplicaMemoryGb: 64, maxReplicaMemoryGb: 32 }, ['minReplicaMemoryGb']],
  ])('refuses %j, naming %j', (body, fields) => {
    expect(refusedFields(body)).toEqual(fields);
  });

  it('takes the three state commands and nothing else', () => {
    expect(['start', 'stop', 'awake'].map((command) => StateCommandSchema.safeParse(command).success)).toEqual([
      true,
      true,
      true,
    ]);
    expect(StateCommandSchema.safeParse('wake').success).toBe(false);
  });
});
