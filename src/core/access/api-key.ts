/**
 * The organization's API keys as `GET …/keys` answers them (official OpenAPI document, `ApiKey`),
 * parsed leniently, and what `keys` flags about each: a key never used for 90 days, one that never
 * expires, one holding the Admin role, and the one the bot itself uses.
 */
import { z } from 'zod';
import { parseEach } from '../parse-each.js';
import { lenient } from '../service/lenient.js';
import { AssignedRoleSchema } from './member.js';

export const ApiKeySchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().catch(''),
  state: z.string().catch('unknown'),
  keySuffix: lenient(z.string()),
  createdAt: lenient(z.string()),
  /** null or absent: the key never expires. */
  expireAt: lenient(z.string().nullable()),
  /** Absent: never used. */
  usedAt: lenient(z.string()),
  assignedRoles: z.array(AssignedRoleSchema).catch([]),
});
export type ApiKey = z.infer<typeof ApiKeySchema>;

export function parseApiKeys(items: readonly unknown[]): { keys: ApiKey[]; skipped: number } {
  const { items: keys, skipped } = parseEach(ApiKeySchema, items);
  return { keys, skipped };
}

/** A key unused this long is worth a look (never used counts from its creation). */
export const UNUSED_DAYS = 90;
const DAY_MS = 86_400_000;

export interface KeyFlags {
  /** The key this bot authenticates with. */
  own: boolean;
  neverExpires: boolean;
  /** Not used for UNUSED_DAYS (or, never used, created that long ago). */
  unused: boolean;
  admin: boolean;
}

export function keyFlags(key: ApiKey, now: number, ownKeyId: string): KeyFlags {
  const lastSign = Date.parse(key.usedAt ?? key.createdAt ?? '');
  return {
    own: key.id === ownKeyId,
    neverExpires: key.expireAt === undefined || key.expireAt === null,
    unused: !Number.isNaN(lastSign) && now - lastSign >= UNUSED_DAYS * DAY_MS,
    admin: key.assignedRoles.some((role) => role.roleName.toLowerCase() === 'admin'),
  };
}
