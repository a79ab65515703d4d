/**
 * API keys in a summary: its keys line (keys that never expire, keys unused for 90 days, admin
 * keys: core/access/api-key.ts keyFlags), and who made each key change (key-drift.ts finds them),
 * from the activity log's `openapi_key_update` entries (`targetKeyId`, `keyUpdateType`).
 */
import { keyFlags, type ApiKey, type KeyFlags } from '../access/api-key.js';
import { targetRecordId } from '../access/target.js';
import type { AuditEntry } from '../change/audit.js';
import { activityTime, type Activity } from '../service/activity.js';
import { authorOf } from './attribution.js';
import type { ChangeAuthor, TimeWindow } from './drift.js';
import type { KeyDriftItem, KeyDriftKind } from './key-drift.js';

// ---------------------------------------------------------------------------------------------
// The keys line

/** What a summary read of the keys: the keys and the bot's own key id, or why they could not be read. */
export type KeysRead = { keys: readonly ApiKey[]; ownKeyId: string } | { unread: { status: number | undefined } };

export interface FlaggedKey {
  key: ApiKey;
  flags: KeyFlags;
}

export interface KeysOverview {
  total: number;
  neverExpires: number;
  unused: number;
  admin: number;
  /** Enabled keys with at least one flag, by name. */
  flagged: FlaggedKey[];
}

/**
 * The counts of the keys line. Only enabled keys are flagged: a disabled key cannot sign a request,
 * so its expiry, its roles and how long it has been idle put nothing at risk until it is enabled.
 */
export function keysOverview(keys: readonly ApiKey[], ownKeyId: string, now: number): KeysOverview {
  const flagged = keys
    .filter((key) => key.state === 'enabled')
    .map((key) => ({ key, flags: keyFlags(key, now, ownKeyId) }))
    .filter(({ flags }) => flags.neverExpires || flags.unused || flags.admin)
    .sort((a, b) => collator.compare(a.key.name || a.key.id, b.key.name || b.key.id));
  const count = (flag: 'neverExpires' | 'unused' | 'admin') => flagged.filter(({ flags }) => flags[flag]).length;
  return {
    total: keys.length,
    neverExpires: count('neverExpires'),
    unused: count('unused'),
    admin: count('admin'),
    flagged,
  };
}

/** The `keyUpdateType`s of an `openapi_key_update` that record each kind of key drift (the document's values). */
const KEY_UPDATE_TYPES: Readonly<Record<KeyDriftKind, readonly string[]>> = {
  'key-added': ['created'],
  'key-removed': ['deleted'],
  'key-disabled': ['state-changed'],
  'key-enabled': ['state-changed'],
  'key-expiry': ['date-changed'],
  'key-renamed': ['name-changed'],
  'key-roles': ['roles-v2-changed', 'role-changed', 'org-role-changed'],
};

/** Activity types besides openapi_key_update that record a key appearing or going. */
const KEY_ACTIVITY_TYPES: Readonly<Partial<Record<KeyDriftKind, string>>> = {
  'key-added': 'key_create',
  'key-removed': 'key_delete',
};

function records(activity: Activity, item: KeyDriftItem): boolean {
  if (activity.targetKeyId?.trim() !== item.keyId) return false;
  if (activity.type === KEY_ACTIVITY_TYPES[item.kind]) return true;
  return activity.type === 'openapi_key_update' && KEY_UPDATE_TYPES[item.kind].includes(activity.keyUpdateType ?? '');
}

/** The kinds of key change the bot's own requests make (`key disable|enable`, `key expire`). */
const BOT_KEY_KINDS: ReadonlySet<KeyDriftKind> = new Set(['key-disabled', 'key-enabled', 'key-expiry']);

/**
 * Marks the key changes this bot made: an 'applied' audit entry of the same key (record id
 * `key:<id>`) inside the window explains one change of a kind the bot makes, the newest entry the
 * latest change. Entries of other keys, or outside the window, explain nothing.
 */
export function explainKeyDrift(
  items: readonly KeyDriftItem[],
  audit: readonly AuditEntry[],
  window: TimeWindow,
): KeyDriftItem[] {
  const applied = audit
    .filter((entry) => entry.action === 'applied' && entry.at >= window.from && entry.at <= window.to)
    .sort((a, b) => b.at - a.at);
  const used = new Set<AuditEntry>();
  return items.map((item) => {
    if (!BOT_KEY_KINDS.has(item.kind)) return item;
    const recordId = targetRecordId({ type: 'apiKey', keyId: item.keyId });
    const entry = applied.find((candidate) => !used.has(candidate) && candidate.serviceId === recordId);
    if (entry === undefined) return item;
    used.add(entry);
    return { ...item, via: { changeId: entry.changeId } };
  });
}

/**
 * Sets `authors` on every key drift item: the authors of the activities naming that key with a
 * type of update that records its kind of change, inside the window, or (only when none inside
 * does) within `marginMs` of it, for a stale read or a skewed clock.
 */
export function attributeKeyDrift(
  items: readonly KeyDriftItem[],
  activities: readonly Activity[],
  ownKeyId: string,
  window: TimeWindow,
  marginMs = 0,
): KeyDriftItem[] {
  const timed = activities.flatMap((activity) => {
    const at = activityTime(activity);
    return at !== undefined && at >= window.from - marginMs && at <= window.to + marginMs ? [{ activity, at }] : [];
  });
  const inside = timed.filter(({ at }) => at >= window.from && at <= window.to);
  return items.map((item) => {
    const found = keyAuthors(item, inside, ownKeyId);
    const authors = found.length > 0 ? found : keyAuthors(item, timed, ownKeyId);
    // A change the bot's own request explains takes only the bot key's activities (as for services).
    return { ...item, authors: item.via ? authors.filter((author) => author.actor === 'bot') : authors };
  });
}

function keyAuthors(
  item: KeyDriftItem,
  activities: ReadonlyArray<{ activity: Activity; at: number }>,
  ownKeyId: string,
): ChangeAuthor[] {
  const byAuthor = new Map<string, ChangeAuthor>();
  for (const { activity, at } of activities) {
    if (!records(activity, item)) continue;
    const author = authorOf(activity, ownKeyId, at);
    const key = `${author.actor}\n${author.name ?? ''}`;
    const known = byAuthor.get(key);
    if (known === undefined || known.at < author.at) byAuthor.set(key, author);
  }
  return [...byAuthor.values()].sort((a, b) => a.at - b.at);
}

const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
