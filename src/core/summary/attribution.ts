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
import { activityTime, actorDetailsText, type Activity } from '../service/activity.js';
import type { ChangeAuthor, DriftItem, DriftKind, TimeWindow } from './drift.js';

const IP_ACCESS = ['service_update_ip_access_list'];
const PRIVATE_ENDPOINTS = ['service_update_private_endpoints'];
const MYSQL = ['service_update_mysql_interface'];

/** The activity types (the API's names) that record each kind of drift; other types explain nothing. */
export const ACTIVITY_TYPES_OF: Record<DriftKind, readonly string[]> = {
  'service-added': ['service_create', 'service_import_to_organization', 'transfer_service_in'],
  'service-removed': ['service_delete', 'service_export_from_organization', 'transfer_service_out'],
  renamed: ['service_update_name'],
  'release-channel-changed': ['service_update_release_channel'],
  'endpoint-enabled': MYSQL,
  'endpoint-disabled': MYSQL,
  'ip-added': IP_ACCESS,
  'ip-removed': IP_ACCESS,
  'ip-description-changed': IP_ACCESS,
  'private-endpoint-attached': PRIVATE_ENDPOINTS,
  'private-endpoint-detached': PRIVATE_ENDPOINTS,
  'encryption-key-rotated': ['service_encryption_key_rotated'],
};

function typesOf(item: DriftItem): readonly string[] {
  // HTTPS and native endpoints cannot be switched by anyone's API call: no type records them.
  const isOtherEndpoint = item.label === 'Service' && item.kind.startsWith('endpoint-');
  return isOtherEndpoint ? [] : ACTIVITY_TYPES_OF[item.kind];
}

interface TimedActivity {
  activity: Activity;
  serviceId: string;
  type: string;
  at: number;
}

/**
 * Sets `authors` on every item. Items the bot's own applied requests explain (`via`, from
 * attributeDrift) keep that and take only the bot key's activities. Activities of the bot's key
 * whose kind of change such an item accounts for do not explain the other items of that service:
 * a console edit next to the bot's own reads as the console's alone.
 */
export function attributeFromActivities(
  items: readonly DriftItem[],
  activities: readonly Activity[],
  ownKeyId: string,
  window: TimeWindow,
): DriftItem[] {
  const timed = activities.flatMap((activity): TimedActivity[] => {
    const at = activityTime(activity);
    const { serviceId, type } = activity;
    if (at === undefined || serviceId === undefined || type === undefined) return [];
    return at >= window.from && at <= window.to ? [{ activity, serviceId, type, at }] : [];
  });
  const accounted = new Set<string>();
  for (const item of items) {
    if (item.via) for (const type of typesOf(item)) accounted.add(serviceType(item.serviceId, type));
  }
  return items.map((item) => ({ ...item, authors: authorsOf(item, timed, ownKeyId, accounted) }));
}

const serviceType = (serviceId: string, type: string) => `${serviceId}\n${type}`;

function authorsOf(
  item: DriftItem,
  activities: readonly TimedActivity[],
  ownKeyId: string,
  accounted: ReadonlySet<string>,
): ChangeAuthor[] {
  const types = typesOf(item);
  const byAuthor = new Map<string, ChangeAuthor>();
  for (const candidate of activities) {
    if (candidate.serviceId !== item.serviceId || !types.includes(candidate.type)) continue;
    const author = authorOf(candidate.activity, ownKeyId, candidate.at);
    const isBot = author.actor === 'bot';
    if (item.via !== undefined && !isBot) continue;
    if (item.via === undefined && isBot && accounted.has(serviceType(item.serviceId, candidate.type))) continue;
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
