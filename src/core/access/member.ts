/**
 * The organization's members and roles as `GET …/members` and `GET …/roles` answer them (official
 * OpenAPI document: `Member`, `RBACRole`), parsed leniently: one odd entry never hides the others.
 */
import { z } from 'zod';
import { parseEach } from '../parse-each.js';
import { lenient } from '../service/lenient.js';

/** A role as a member or a key holds it. */
export const AssignedRoleSchema = z.looseObject({
  roleId: z.string(),
  roleName: z.string().catch(''),
  roleType: lenient(z.string()),
});

export const MemberSchema = z.looseObject({
  userId: z.string().min(1),
  name: z.string().catch(''),
  email: z.string().catch(''),
  joinedAt: lenient(z.string()),
  assignedRoles: z.array(AssignedRoleSchema).catch([]),
});
export type Member = z.infer<typeof MemberSchema>;

export const RoleSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().catch(''),
  /** system or custom */
  type: z.string().catch('unknown'),
  /** "user/{id}" and "apiKey/{id}" holding the role. */
  actors: z.array(z.string()).catch([]),
});
export type Role = z.infer<typeof RoleSchema>;

export const parseMembers = (items: readonly unknown[]) => parseEach(MemberSchema, items);
export const parseRoles = (items: readonly unknown[]) => parseEach(RoleSchema, items);

/** Members holding a role, by its name or id (any case); all of them without one. */
export function membersWithRole(members: readonly Member[], role: string | undefined): Member[] {
  if (role === undefined) return [...members];
  const wanted = role.trim().toLowerCase();
  return members.filter((member) =>
    member.assignedRoles.some((r) => r.roleName.toLowerCase() === wanted || r.roleId.toLowerCase() === wanted),
  );
}
