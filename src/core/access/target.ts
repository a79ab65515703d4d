/**
 * Targets of a change that are not services (issue 36's typed targets): an organization member
 * (their roles) or an API key (its state and expiry). The middle layer reads one afresh like a
 * service and hands it to the core as a record whose id is `member:…` or `key:…` (the id stores
 * lock and index by, and people see) carrying what was read under `organizationTarget`.
 */
import type { ApiKey } from './api-key.js';
import type { Member, Role } from './member.js';

export type OrganizationTarget =
  { type: 'member'; member: Member; roles: Role[] } | { type: 'apiKey'; key: ApiKey; roles: Role[]; ownKeyId: string };
export type OrganizationTargetType = OrganizationTarget['type'];

/** How a plan names its target when it is not a service: read afresh by this id. */
export type PlanTarget = { type: 'member'; userId: string } | { type: 'apiKey'; keyId: string };

const PREFIX: Record<OrganizationTargetType, string> = { member: 'member:', apiKey: 'key:' };

/** The id a target is locked, indexed and shown by: `member:<userId>`, `key:<keyId>`. */
export function targetRecordId(target: PlanTarget): string {
  return target.type === 'member' ? `${PREFIX.member}${target.userId}` : `${PREFIX.apiKey}${target.keyId}`;
}

/** "member" or "API key", for sentences. */
export const TARGET_NOUN: Record<OrganizationTargetType, string> = { member: 'member', apiKey: 'API key' };
