/** Small builders for the pure-core tests: records go through the real schema, like the client's. */
import { ServiceRecordSchema, type ServiceRecord } from '../../src/core/service/schema.js';
import { planChange } from '../../src/core/change/plan.js';
import type { PlanProblem } from '../../src/core/change/plan.js';
import type { ChangeIntent, ChangePlan, ChangeRequest } from '../../src/core/change/types.js';
import type { AuditEntry } from '../../src/core/change/audit.js';

export const SERVICE_ID = 'a1b2c3d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d';

/** A production service with two IP entries, one attached private endpoint and TDE on. */
export function service(overrides: Record<string, unknown> = {}): ServiceRecord {
  return ServiceRecordSchema.parse({
    id: SERVICE_ID,
    name: 'orders-prod',
    provider: 'aws',
    region: 'eu-west-1',
    state: 'running',
    tier: 'production',
    releaseChannel: 'default',
    clickhouseVersion: '24.3.1.2672',
    endpoints: [
      { protocol: 'https', host: 'abc.eu-west-1.aws.clickhouse.cloud', port: 8443, username: 'default' },
      { protocol: 'nativesecure', host: 'abc.eu-west-1.aws.clickhouse.cloud', port: 9440, username: 'default' },
    ],
    autoscalingMode: 'vertical',
    minReplicaMemoryGb: 8,
    maxReplicaMemoryGb: 16,
    // Deprecated (always three workers); kept here because current records still carry them.
    minTotalMemoryGb: 24,
    maxTotalMemoryGb: 48,
    numReplicas: 3,
    idleScaling: true,
    idleTimeoutMinutes: 15,
    ipAccessList: [
      { source: '10.0.0.0/8', description: 'office' },
      { source: '203.0.113.7/32', description: 'vpn' },
    ],
    createdAt: '2024-03-01T10:00:00Z',
    privateEndpointIds: ['pe-attached'],
    availablePrivateEndpointIds: ['pe-attached', 'pe-free'],
    hasTransparentDataEncryption: true,
    transparentDataEncryptionKeyId: 'key-1',
    tags: [{ key: 'env', value: 'prod' }],
    ...overrides,
  });
}

/** `count` distinct IPv4 /32 entries, each with a description of `descriptionLength` characters. */
export function ipEntries(count: number, descriptionLength = 0): Array<{ source: string; description?: string }> {
  return Array.from({ length: count }, (_, i) => {
    const source = `10.${Math.floor(i / 250)}.${i % 250}.1/32`;
    return descriptionLength > 0 ? { source, description: `entry ${i} `.padEnd(descriptionLength, 'x') } : { source };
  });
}

export function servicesNamed(count: number): ServiceRecord[] {
  return Array.from({ length: count }, (_, i) =>
    service({
      id: `${String(i).padStart(8, '0')}-5e6f-4a7b-8c9d-0e1f2a3b4c5d`,
      name: `svc-${String(i).padStart(5, '0')}`,
      ipAccessList: i % 7 === 0 ? [{ source: '0.0.0.0/0' }] : [{ source: '10.0.0.0/8' }],
    }),
  );
}

/** Plans a change that must succeed. */
export function mustPlan(record: ServiceRecord, intent: ChangeIntent): ChangePlan {
  const result = planChange(record, intent);
  if (!result.ok) throw new Error(`expected a plan, got problems: ${JSON.stringify(result.problems)}`);
  return result.plan;
}

/** Plans a change that must be refused, and returns why. */
export function refused(record: ServiceRecord, intent: ChangeIntent): PlanProblem[] {
  const result = planChange(record, intent);
  if (result.ok) throw new Error(`expected a refusal, got plan: ${JSON.stringify(result.plan)}`);
  return result.problems;
}

export const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);

export function changeRequest(plan: ChangePlan, overrides: Partial<ChangeRequest> = {}): ChangeRequest {
  return {
    id: 'cr-0001',
    channelId: 'C0123',
    requesterId: 'U0REQUESTER',
    plan,
    createdAt: NOW,
    expiresAt: NOW + 3_600_000,
    status: 'pending',
    ...overrides,
  };
}

export function auditEntry(overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    id: '1-0',
    at: NOW,
    action: 'requested',
    changeId: 'cr-0001',
    actorId: 'U0REQUESTER',
    channelId: 'C0123',
    serviceId: SERVICE_ID,
    serviceName: 'orders-prod',
    summary: 'Name: orders-prod → orders-main',
    ...overrides,
  };
}
