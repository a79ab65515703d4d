/** Records of the capacity tests: the demo organization's shapes, parsed through the real schema. */
import { planCapacityChange, type CapacityChange, type CapacityTarget } from '../../../src/core/capacity/plan.js';
import { ServiceRecordSchema, type ServiceRecord } from '../../../src/core/service/schema.js';

/** orders-prod: vertical, 3 × 8–32 GB, a primary production service, idle scaling off. */
export function vertical(overrides: Record<string, unknown> = {}): ServiceRecord {
  return ServiceRecordSchema.parse({
    id: 'v-1',
    name: 'orders-prod',
    state: 'running',
    tier: 'production',
    autoscalingMode: 'vertical',
    numReplicas: 3,
    minReplicaMemoryGb: 8,
    maxReplicaMemoryGb: 32,
    idleScaling: false,
    idleTimeoutMinutes: 15,
    isPrimary: true,
    ...overrides,
  });
}

/** search-prod: horizontal, 2–6 × 16 GB. */
export function horizontal(overrides: Record<string, unknown> = {}): ServiceRecord {
  return ServiceRecordSchema.parse({
    id: 'h-1',
    name: 'search-prod',
    state: 'running',
    tier: 'production',
    autoscalingMode: 'horizontal',
    minReplicas: 2,
    maxReplicas: 6,
    replicaMemoryGb: 16,
    idleScaling: false,
    idleTimeoutMinutes: 15,
    isPrimary: true,
    ...overrides,
  });
}

/** sandbox-dev: a development service, idle, one replica, idling after 15 minutes. */
export function dev(overrides: Record<string, unknown> = {}): ServiceRecord {
  return vertical({
    id: 'd-1',
    name: 'sandbox-dev',
    state: 'idle',
    tier: 'development',
    numReplicas: 1,
    minReplicaMemoryGb: 8,
    maxReplicaMemoryGb: 8,
    idleScaling: true,
    ...overrides,
  });
}

export function planned(service: ServiceRecord, target: CapacityTarget): CapacityChange {
  const plan = planCapacityChange(service, target);
  if (!plan.ok) throw new Error(`expected a plan, got: ${plan.problems.join(' ')}`);
  return plan.change;
}
