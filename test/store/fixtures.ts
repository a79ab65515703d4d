import { randomUUID } from 'node:crypto';
import type { ChangePlan, ChangeRequest } from '../../src/core/change/types.js';
import type { Transition } from '../../src/ports/change-store.js';

export const HOUR_MS = 60 * 60 * 1000;

/** A plan with empty arrays in it on purpose: they must come back as arrays, not objects. */
export function buildPlan(overrides: Partial<ChangePlan> = {}): ChangePlan {
  return {
    serviceId: 'svc-1',
    serviceName: 'analytics',
    update: {
      name: 'analytics-2',
      ipAccessList: { add: [{ source: '1.2.3.4/32', description: 'office' }], remove: [] },
    },
    changes: [
      { field: 'name', label: 'Name', before: 'analytics', after: 'analytics-2' },
      { field: 'ipAccessList', label: 'IP access', before: '-', after: '+1.2.3.4/32' },
    ],
    warnings: [],
    before: { name: 'analytics', ipAccessList: [], privateEndpointIds: [] },
    ...overrides,
  };
}

/** A pending request created a second ago that expires in an hour (override times as needed). */
export function buildChangeRequest(overrides: Partial<ChangeRequest> = {}): ChangeRequest {
  const now = Date.now();
  return {
    id: randomUUID(),
    channelId: 'C-ops',
    requesterId: 'U-requester',
    plan: buildPlan(),
    createdAt: now - 1000,
    expiresAt: now + HOUR_MS,
    status: 'pending',
    ...overrides,
  };
}

/** A request whose expiry has passed, still within the default retention. */
export function buildExpiredRequest(overrides: Partial<ChangeRequest> = {}): ChangeRequest {
  const now = Date.now();
  return buildChangeRequest({ createdAt: now - 2 * HOUR_MS, expiresAt: now - HOUR_MS, ...overrides });
}

export function approve(actorId = 'U-approver', now = Date.now()): Transition {
  return {
    from: ['pending'],
    to: 'applying',
    actorId,
    now,
    audit: { action: 'approved', summary: 'Name: analytics -> analytics-2' },
  };
}

export function markApplied(actorId = 'U-approver', now = Date.now()): Transition {
  return {
    from: ['applying'],
    to: 'applied',
    actorId,
    now,
    outcome: { apiRequestId: 'req-42', status: 200 },
    audit: { action: 'applied', summary: 'Name: analytics -> analytics-2', apiRequestId: 'req-42' },
  };
}
