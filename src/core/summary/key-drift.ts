/**
 * The keys' own section of a summary's snapshot, and key drift: what changed in the
 * organization's API keys between two summaries. Keys are not services: snapshots stored before
 * this section lack it, and then no key drift is computed (nothing breaks). Who made each change is
 * keys.ts's (from the activity log).
 */
import { z } from 'zod';
import type { ApiKey } from '../access/api-key.js';
import type { ChangeAuthor } from './change-author.js';

// ---------------------------------------------------------------------------------------------
// Snapshot section

/** A key as a snapshot keeps it: what key drift compares. */
export const KeySnapshotSchema = z.object({
  name: z.string(),
  /** The last four characters of the key, to tell two keys of one name apart. */
  suffix: z.string().optional(),
  state: z.string(),
  /** null: it never expires. */
  expireAt: z.string().nullable(),
  /** The names of its roles, sorted. */
  roles: z.array(z.string()),
});
export type KeySnapshot = z.infer<typeof KeySnapshotSchema>;

/**
 * The keys' section of a snapshot, with its own time: a summary that could not read the keys
 * carries the previous section forward, and the next one compares against it over its own window.
 */
export const KeysSectionSchema = z.object({
  takenAt: z.number(),
  items: z.record(z.string(), KeySnapshotSchema),
});
export type KeysSection = z.infer<typeof KeysSectionSchema>;

export function keysSection(keys: readonly ApiKey[], now: number): KeysSection {
  const items: Record<string, KeySnapshot> = {};
  for (const key of keys) {
    items[key.id] = {
      name: key.name,
      ...(key.keySuffix === undefined ? {} : { suffix: key.keySuffix }),
      state: key.state,
      expireAt: key.expireAt ?? null,
      roles: key.assignedRoles.map((role) => role.roleName || role.roleId).sort(),
    };
  }
  return { takenAt: now, items };
}

// ---------------------------------------------------------------------------------------------
// Drift

export type KeyDriftKind =
  'key-added' | 'key-removed' | 'key-disabled' | 'key-enabled' | 'key-expiry' | 'key-renamed' | 'key-roles';

export interface KeyDriftItem {
  keyId: string;
  /** The current name, or the last known one for a deleted key. */
  keyName: string;
  suffix?: string;
  kind: KeyDriftKind;
  /** Plain text for people (escape it before it enters mrkdwn). */
  text: string;
  /** Set when the activity log was read: who it says made the change (as for services). */
  authors?: ChangeAuthor[];
  /** Set when a change request of this bot explains it (key change requests are not filed yet). */
  via?: { changeId: string };
}

export function diffKeys(previous: KeysSection, current: KeysSection): KeyDriftItem[] {
  const items: KeyDriftItem[] = [];
  for (const [id, now] of Object.entries(current.items)) {
    const before = previous.items[id];
    if (before === undefined) items.push(item(id, now, 'key-added', `Key created (${now.state})`));
    else items.push(...keyChanges(id, before, now));
  }
  for (const [id, before] of Object.entries(previous.items)) {
    if (current.items[id] === undefined) items.push(item(id, before, 'key-removed', 'Key deleted'));
  }
  return items.sort((a, b) => collator.compare(a.keyName, b.keyName) || (a.keyId < b.keyId ? -1 : 1));
}

function item(keyId: string, key: KeySnapshot, kind: KeyDriftKind, text: string): KeyDriftItem {
  const named = { keyId, keyName: key.name || keyId, kind, text };
  return key.suffix === undefined ? named : { ...named, suffix: key.suffix };
}

function keyChanges(id: string, before: KeySnapshot, now: KeySnapshot): KeyDriftItem[] {
  const changes: KeyDriftItem[] = [];
  if (before.state !== now.state) {
    const kind = now.state === 'disabled' ? 'key-disabled' : now.state === 'enabled' ? 'key-enabled' : undefined;
    changes.push(item(id, now, kind ?? 'key-disabled', kind ? capitalised(now.state) : `State: ${now.state}`));
  }
  if (before.expireAt !== now.expireAt)
    changes.push(item(id, now, 'key-expiry', `Expiry: ${expiryText(before.expireAt)} → ${expiryText(now.expireAt)}`));
  if (before.name !== now.name) changes.push(item(id, now, 'key-renamed', `Renamed: ${before.name} → ${now.name}`));
  if (before.roles.join('\n') !== now.roles.join('\n'))
    changes.push(item(id, now, 'key-roles', `Roles: ${rolesText(before.roles)} → ${rolesText(now.roles)}`));
  return changes;
}

const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const rolesText = (roles: readonly string[]) => (roles.length === 0 ? 'none' : roles.join(', '));

/** "never", or the date and time in UTC (the text is plain: it is escaped, never a Slack date). */
function expiryText(expireAt: string | null): string {
  if (expireAt === null || expireAt === '') return 'never';
  const at = Date.parse(expireAt);
  return Number.isNaN(at) ? expireAt : `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
