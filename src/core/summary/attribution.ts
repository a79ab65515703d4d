/**
 * Exact drift attribution: who made each change, as the organization's activity log names them
 * (this bot's own API key, another key, a console user, ClickHouse support or the system). A pure
 * function of the snapshot diff, the activities and the bot's key id.
 *
 * The log says which service and which kind of setting changed, by whom and when, but not which
 * IP entry or which value: an item is matched to the activities of its service whose type records
 * its kind of change, inside the window the diff covers. When they name one author, that is
 * who did it; when they name several, the item says so rather than pick one.
 */
import type { AuditEntry } from '../change/audit.js';
import { activityTime, actorDetailsText, type Activity } from '../service/activity.js';
import { DRIFT_OUTSIDE_BOT } from '../change/kinds/drift-parts.js';
import { DRIFT_PARTS } from './snapshot.js';
import { updateEffects, type ChangeAuthor, type DriftItem, type DriftKind, type TimeWindow } from './drift.js';

/** The activity types (the API's names) that record each kind of drift; other types explain nothing. */
export const ACTIVITY_TYPES_OF: Readonly<Record<DriftKind, readonly string[]>> = {
  'service-added': ['service_create', 'service_import_to_organization', 'transfer_service_in'],
  'service-removed': ['service_delete', 'service_export_from_organization', 'transfer_service_out'],
  ...Object.fromEntries(DRIFT_PARTS.flatMap((drift) => Object.entries(drift.activityTypes))),
};

function typesOf(item: DriftItem): readonly string[] {
  // What no API call can change (HTTPS and native endpoints) has no type that records it.
  const outsideBot =
    item.label === DRIFT_OUTSIDE_BOT && item.kind !== 'service-added' && item.kind !== 'service-removed';
  return outsideBot ? [] : (ACTIVITY_TYPES_OF[item.kind] ?? []);
}

interface TimedActivity {
  activity: Activity;
  serviceId: string;
  type: string;
  at: number;
}

/**
 * Sets `authors` on every item. Items the bot's own applied requests explain (`via`, from
 * attributeDrift) keep that and take only the bot key's activities. The bot key's activities that
 * its applied requests account for (the closest in time, per service and type) explain no other
 * item: a console edit next to the bot's own, or one that undid the bot's, reads as the console's
 * alone. Activities of the bot's key that no request accounts for (someone else using the key)
 * stay candidates, and are said as such.
 */
export function attributeFromActivities(
  items: readonly DriftItem[],
  activities: readonly Activity[],
  ownKeyId: string,
  window: TimeWindow,
  audit: readonly AuditEntry[],
  options: AttributionOptions = {},
): DriftItem[] {
  const margin = options.marginMs ?? 0;
  const timed = activities.flatMap((activity): TimedActivity[] => {
    const at = activityTime(activity);
    const { serviceId, type } = activity;
    if (at === undefined || serviceId === undefined || type === undefined) return [];
    return at >= window.from - margin && at <= window.to + margin ? [{ activity, serviceId, type, at }] : [];
  });
  const inside = timed.filter((a) => a.at >= window.from && a.at <= window.to);
  const accounted = accountedByAudit(timed, ownKeyId, audit, window);
  return items.map((item) => {
    const authors = authorsOf(item, inside, ownKeyId, accounted);
    // Only when nothing inside the window names anyone: the margin, for a stale read or a skewed clock.
    return { ...item, authors: authors.length > 0 ? authors : authorsOf(item, timed, ownKeyId, accounted) };
  });
}

export interface AttributionOptions {
  /**
   * Activities up to this long outside the window (ms) name an author when none inside does: a
   * snapshot may come from a cached read taken before its time, and the API's clock is not the bot's.
   */
  marginMs?: number;
}

/** Per applied request in the window and type of change it made, the bot key's activity closest in time. */
function accountedByAudit(
  activities: readonly TimedActivity[],
  ownKeyId: string,
  audit: readonly AuditEntry[],
  window: TimeWindow,
): Set<TimedActivity> {
  const accounted = new Set<TimedActivity>();
  const ours = activities.filter((a) => a.activity.actorType === 'api' && a.activity.actorId?.trim() === ownKeyId);
  for (const entry of audit) {
    if (entry.action !== 'applied' || !entry.update || entry.at < window.from || entry.at > window.to) continue;
    const types = new Set(updateEffects(entry.update).flatMap((effect) => ACTIVITY_TYPES_OF[effect.kind] ?? []));
    for (const type of types) {
      const closest = ours
        .filter((a) => a.serviceId === entry.serviceId && a.type === type && !accounted.has(a))
        .sort((a, b) => Math.abs(a.at - entry.at) - Math.abs(b.at - entry.at))[0];
      if (closest) accounted.add(closest);
    }
  }
  return accounted;
}

function authorsOf(
  item: DriftItem,
  activities: readonly TimedActivity[],
  ownKeyId: string,
  accounted: ReadonlySet<TimedActivity>,
): ChangeAuthor[] {
  const types = typesOf(item);
  const byAuthor = new Map<string, ChangeAuthor>();
  for (const candidate of activities) {
    if (candidate.serviceId !== item.serviceId || !types.includes(candidate.type)) continue;
    const author = authorOf(candidate.activity, ownKeyId, candidate.at);
    const isBot = author.actor === 'bot';
    if (item.via !== undefined ? !isBot : isBot && accounted.has(candidate)) continue;
    const key = `${author.actor}\n${author.name ?? ''}`;
    const known = byAuthor.get(key);
    if (known === undefined || known.at < author.at) byAuthor.set(key, author);
  }
  return [...byAuthor.values()].sort((a, b) => a.at - b.at);
}

/** The author an activity names; an API key is the bot's own exactly when its id is the bot's key id. */
export function authorOf(activity: Activity, ownKeyId: string, at: number): ChangeAuthor {
  const id = activity.actorId?.trim() ? activity.actorId.trim() : undefined;
  const named = (author: Omit<ChangeAuthor, 'at'>, name: string | undefined): ChangeAuthor =>
    name === undefined ? { ...author, at } : { ...author, name, at };
  switch (activity.actorType) {
    case 'api':
      return id !== undefined && id === ownKeyId ? { actor: 'bot', at } : named({ actor: 'api-key' }, id);
    case 'user':
      return named({ actor: 'user' }, actorDetailsText(activity) ?? id);
    case 'support':
      return { actor: 'support', at };
    case 'system':
      return { actor: 'system', at };
    case undefined:
      return named({ actor: 'unknown' }, id);
  }
}
