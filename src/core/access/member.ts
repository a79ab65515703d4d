/**
 * The organization's members and roles as `GET …/members` and `GET …/roles` answer them (official
 * OpenAPI document: `Member`, `RBACRole`), parsed leniently: one odd entry never hides the others.
 */
import { z } from 'zod';
import { lenient } from '../service/schema.js';

const AssignedRoleSchema = z.looseObject({
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

function parseAll<T>(schema: z.ZodType<T>, items: readonly unknown[]): { items: T[]; skipped: number } {
  const parsed = items.flatMap((item) => {
    const one = schema.safeParse(item);
    return one.success ? [one.data] : [];
  });
  return { items: parsed, skipped: items.length - parsed.length };
}

export const parseMembers = (items: readonly unknown[]) => parseAll(MemberSchema, items);
export const parseRoles = (items: readonly unknown[]) => parseAll(RoleSchema, items);

/** Members holding a role, by its name or id (any case); all of them without one. */
export function membersWithRole(members: readonly Member[], role: string | undefined): Member[] {
  if (role === undefined) return [...members];
  const wanted = role.trim().toLowerCase();
  return members.filter((member) =>
    member.assignedRoles.some((r) => r.roleName.toLowerCase() === wanted || r.roleId.toLowerCase() === wanted),
  );
}
