/**
 * Members, roles and API keys of the simulated organization (official OpenAPI document:
 * `GET …/members`, `GET`/`PATCH`/`DELETE …/members/{userId}`, `GET …/roles`, `GET …/keys`,
 * `GET`/`PATCH`/`DELETE …/keys/{keyId}`; `Member`, `RBACRole`, `ApiKey`, `MemberPatchRequest`,
 * `ApiKeyPatchRequest`). Records keep role ids; the views resolve them into the document's
 * `assignedRoles` ({roleId, roleName, roleType}). The rules are pure functions; AccessDirectory
 * only stores.
 */
import { z } from 'zod';
import { isIpOrCidr } from '../core/service/schema.js';
import { validate } from './capacity.js';
import type { AccessEntryRecord, Outcome } from './records.js';

export interface RoleRecord {
  id: string;
  name: string;
  type: 'system' | 'custom';
  createdAt: string;
  /** Permissions of its one policy (the document's RBACPolicy, simplified). */
  permissions: string[];
}

export interface MemberRecord {
  userId: string;
  name: string;
  email: string;
  joinedAt: string;
  assignedRoleIds: string[];
}

export interface KeyRecord {
  id: string;
  name: string;
  state: 'enabled' | 'disabled';
  assignedRoleIds: string[];
  keySuffix: string;
  createdAt: string;
  /** null or absent: the key never expires (the document). */
  expireAt?: string | null;
  /** Absent: never used. One-minute precision (the document). */
  usedAt?: string;
  ipAccessList: AccessEntryRecord[];
}

/** The document's `keyUpdateType` of an `openapi_key_update` activity. */
export type KeyUpdateType =
  'name-changed' | 'state-changed' | 'date-changed' | 'ip-access-list-changed' | 'roles-v2-changed';

// ---------------------------------------------------------------------------------------------
// Views

function assignedRoles(ids: readonly string[], roles: readonly RoleRecord[]): unknown[] {
  return ids.flatMap((id) => {
    const role = roles.find((candidate) => candidate.id === id);
    return role === undefined ? [] : [{ roleId: role.id, roleName: role.name, roleType: role.type }];
  });
}

export function memberView(member: MemberRecord, roles: readonly RoleRecord[]): unknown {
  const { assignedRoleIds, ...fields } = member;
  return { ...fields, assignedRoles: assignedRoles(assignedRoleIds, roles) };
}

export function keyView(key: KeyRecord, roles: readonly RoleRecord[]): unknown {
  const { assignedRoleIds, ...fields } = key;
  return { ...structuredClone(fields), assignedRoles: assignedRoles(assignedRoleIds, roles) };
}

/** An RBACRole: its actors are the members and keys holding it ("user/…", "apiKey/…", the document's form). */
export function roleView(
  role: RoleRecord,
  orgId: string,
  members: readonly MemberRecord[],
  keys: readonly KeyRecord[],
) {
  const tenant = `organization/${orgId}`;
  return {
    id: role.id,
    tenantId: tenant,
    ownerId: tenant,
    name: role.name,
    type: role.type,
    actors: [
      ...members.filter((member) => member.assignedRoleIds.includes(role.id)).map((member) => `user/${member.userId}`),
      ...keys.filter((key) => key.assignedRoleIds.includes(role.id)).map((key) => `apiKey/${key.id}`),
    ],
    policies: [
      {
        id: `${role.id}-policy`,
        roleId: role.id,
        tenantId: tenant,
        allowDeny: 'ALLOW',
        permissions: [...role.permissions],
        resources: ['instance/*'],
      },
    ],
    createdAt: role.createdAt,
    updatedAt: role.createdAt,
  };
}

// ---------------------------------------------------------------------------------------------
// PATCH bodies

// Not documented: whether an empty role list is accepted; nobody would be left able to do anything.
const RoleIds = z
  .array(z.string({ error: 'must be string' }), { error: 'must be array' })
  .min(1, { error: 'must NOT have fewer than 1 items' });

const MemberPatchSchema = z.strictObject({ assignedRoleIds: RoleIds.optional() });

const KeyPatchSchema = z.strictObject({
  name: z
    .string({ error: 'must be string' })
    .min(1, { error: 'must NOT have fewer than 1 characters' })
    .max(50, { error: 'must NOT have more than 50 characters' })
    .optional(),
  assignedRoleIds: RoleIds.optional(),
  expireAt: z.iso
    .datetime({ offset: true, error: 'must match format "date-time"' })
    .or(z.literal(''))
    .nullable()
    .optional(),
  state: z.enum(['enabled', 'disabled'], { error: 'must be one of: enabled, disabled' }).optional(),
  ipAccessList: z
    .array(
      z.strictObject({
        source: z.string().refine(isIpOrCidr, { error: 'must be an IPv4 or IPv6 address or CIDR block' }),
        description: z.string().optional(),
      }),
    )
    .optional(),
});

function unknownRole(ids: readonly string[] | undefined, roles: readonly RoleRecord[]): string | undefined {
  const missing = (ids ?? []).find((id) => !roles.some((role) => role.id === id));
  return missing === undefined ? undefined : `role ${missing} not found`;
}

/** The member after a PATCH body (assignedRoleIds replaces the roles), or the API's 400 sentence. */
export function patchMember(member: MemberRecord, body: unknown, roles: readonly RoleRecord[]): Outcome<MemberRecord> {
  const parsed = validate(MemberPatchSchema, body);
  if (!parsed.ok) return parsed;
  const refused = unknownRole(parsed.value.assignedRoleIds, roles);
  if (refused !== undefined) return { ok: false, message: refused };
  return { ok: true, value: { ...member, assignedRoleIds: parsed.value.assignedRoleIds ?? member.assignedRoleIds } };
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The key after a PATCH body and the kinds of update it made (one activity each), or the API's 400 sentence. */
export function patchKey(
  key: KeyRecord,
  body: unknown,
  roles: readonly RoleRecord[],
): Outcome<{ key: KeyRecord; updates: KeyUpdateType[] }> {
  const parsed = validate(KeyPatchSchema, body);
  if (!parsed.ok) return parsed;
  const patch = parsed.value;
  const refused = unknownRole(patch.assignedRoleIds, roles);
  if (refused !== undefined) return { ok: false, message: refused };
  const next: KeyRecord = structuredClone(key);
  if (patch.name !== undefined) next.name = patch.name;
  if (patch.state !== undefined) next.state = patch.state;
  if (patch.assignedRoleIds !== undefined) next.assignedRoleIds = [...patch.assignedRoleIds];
  // "If null or is empty the key never expires."
  if (patch.expireAt !== undefined) next.expireAt = patch.expireAt === '' ? null : patch.expireAt;
  if (patch.ipAccessList !== undefined) next.ipAccessList = patch.ipAccessList;
  const changed = (field: keyof KeyRecord): boolean => !sameJson(key[field] ?? null, next[field] ?? null);
  const updates: KeyUpdateType[] = [];
  if (changed('name')) updates.push('name-changed');
  if (changed('state')) updates.push('state-changed');
  if (changed('expireAt')) updates.push('date-changed');
  if (changed('ipAccessList')) updates.push('ip-access-list-changed');
  if (changed('assignedRoleIds')) updates.push('roles-v2-changed');
  return { ok: true, value: { key: next, updates } };
}

/** DELETE …/keys/{keyId}: the document's one rule. */
export function keyDeletionRefusal(keyId: string, requestKeyId: string): string | undefined {
  return keyId === requestKeyId ? 'Only a key not used to authenticate the active request can be deleted' : undefined;
}

/** Not documented: removing the last holder of the Admin system role is refused, as the console refuses it. */
export function memberDeletionRefusal(
  userId: string,
  members: readonly MemberRecord[],
  roles: readonly RoleRecord[],
): string | undefined {
  const admin = roles.find((role) => role.type === 'system' && role.name === 'Admin');
  const admins = members.filter((member) => admin !== undefined && member.assignedRoleIds.includes(admin.id));
  return admins.length === 1 && admins[0]?.userId === userId
    ? 'the last admin of the organization cannot be removed'
    : undefined;
}

/**
 * Not documented: a PATCH that takes the Admin system role from the organization's last admin is
 * refused, as removing that member is (the console keeps one admin at least).
 */
function lastAdminRefusal(
  next: MemberRecord,
  members: readonly MemberRecord[],
  roles: readonly RoleRecord[],
): string | undefined {
  const admin = roles.find((role) => role.type === 'system' && role.name === 'Admin');
  if (admin === undefined || next.assignedRoleIds.includes(admin.id)) return undefined;
  const others = members.filter((member) => member.userId !== next.userId && member.assignedRoleIds.includes(admin.id));
  const wasAdmin = members.some((member) => member.userId === next.userId && member.assignedRoleIds.includes(admin.id));
  return wasAdmin && others.length === 0 ? 'the last admin of the organization cannot lose the Admin role' : undefined;
}

/** Whether a key can authenticate at `now`: enabled and not past its expiry. */
export function keyUsable(key: KeyRecord, now: number): boolean {
  const expiry = typeof key.expireAt === 'string' && key.expireAt !== '' ? Date.parse(key.expireAt) : Infinity;
  return key.state === 'enabled' && now < expiry;
}

/** usedAt has one-minute precision (the document). */
export const usedAtOf = (now: number): string => new Date(Math.floor(now / 60_000) * 60_000).toISOString();

// ---------------------------------------------------------------------------------------------
// Storage

export interface AccessSeed {
  roles: RoleRecord[];
  members: MemberRecord[];
  keys: KeyRecord[];
}

/** The organization's roles, members and keys, in the order the list endpoints return them. */
export class AccessDirectory {
  readonly roles: RoleRecord[];
  readonly members = new Map<string, MemberRecord>();
  readonly keys = new Map<string, KeyRecord>();

  constructor(seed: AccessSeed) {
    this.roles = structuredClone(seed.roles);
    for (const member of structuredClone(seed.members)) this.members.set(member.userId, member);
    for (const key of structuredClone(seed.keys)) this.keys.set(key.id, key);
  }

  /** PATCH …/members/{userId} (patchMember's rules), stored when accepted; undefined for an unknown member. */
  applyMemberPatch(userId: string, body: unknown): Outcome<MemberRecord> | undefined {
    const member = this.members.get(userId);
    if (member === undefined) return undefined;
    const outcome = patchMember(member, body, this.roles);
    if (!outcome.ok) return outcome;
    const refused = lastAdminRefusal(outcome.value, [...this.members.values()], this.roles);
    if (refused !== undefined) return { ok: false, message: refused };
    this.members.set(userId, outcome.value);
    return outcome;
  }

  /** PATCH …/keys/{keyId} (patchKey's rules), stored when accepted; undefined for an unknown key. */
  applyKeyPatch(keyId: string, body: unknown): Outcome<{ key: KeyRecord; updates: KeyUpdateType[] }> | undefined {
    const key = this.keys.get(keyId);
    if (key === undefined) return undefined;
    const outcome = patchKey(key, body, this.roles);
    if (outcome.ok) this.keys.set(keyId, outcome.value.key);
    return outcome;
  }
}
