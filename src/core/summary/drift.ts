/**
 * What changed between two snapshots of the same summary, and which of those changes this bot
 * made (from the audit trail) rather than the console, Terraform or another tool.
 */
import type { AuditEntry } from '../change/audit.js';
import { parseBlock } from '../network/cidr.js';
import type { ServiceUpdate } from '../service/schema.js';
import type { ServiceSnapshot, Snapshot, SnapshotProtocol } from './snapshot.js';

export type DriftKind =
  | 'service-added'
  | 'service-removed'
  | 'renamed'
  | 'release-channel-changed'
  | 'endpoint-enabled'
  | 'endpoint-disabled'
  | 'ip-added'
  | 'ip-removed'
  | 'ip-description-changed'
  | 'private-endpoint-attached'
  | 'private-endpoint-detached'
  | 'encryption-key-rotated';

/** The labels change requests use for their fields (src/core/change/plan.ts); 'Service' is for what the bot never does. */
export const CHANGE_LABELS = [
  'Name',
  'Release channel',
  'MySQL endpoint',
  'IP access',
  'Private endpoint',
  'Encryption key',
] as const;
export type ChangeLabel = (typeof CHANGE_LABELS)[number];
export type DriftLabel = ChangeLabel | 'Service';

export interface DriftItem {
  serviceId: string;
  /** The current name, or the last known one for a removed service. */
  serviceName: string;
  kind: DriftKind;
  label: DriftLabel;
  /** Plain text for people (escape it before it enters mrkdwn). */
  text: string;
  /**
   * The value the change is about (IP source, endpoint id, new name, new key, "on"/"off"), so that
   * two changes of the same kind on one service are matched to the right change request.
   */
  subject: string;
  /** IP entries added or re-described: the description they have now. */
  ipDescription?: string;
  /** Set when the change was applied through this bot. */
  via?: { changeId: string };
  /**
   * Set when the organization's activity log was read: who it says made the change (attribution.ts).
   * Empty: the log names nobody for it; several: it names more than one possible author.
   */
  authors?: ChangeAuthor[];
}

/** Who made a change, as the organization's activity log names them. */
export interface ChangeAuthor {
  /** 'bot': an API call with this bot's own key; 'api-key': with any other key; 'user': in the console. */
  actor: 'bot' | 'api-key' | 'user' | 'support' | 'system' | 'unknown';
  /** The key id ('api-key'), the email or else the user id ('user'); absent otherwise. */
  name?: string;
  /** When (epoch ms): the latest activity of this author that can be the change. */
  at: number;
}

/** Made by this bot: an applied request of the bot explains it, or the activity log names only the bot's key. */
export function isBotChange(item: DriftItem): boolean {
  if (item.via !== undefined) return true;
  return item.authors !== undefined && item.authors.length > 0 && item.authors.every((a) => a.actor === 'bot');
}

export interface TimeWindow {
  /** Inclusive, epoch ms. */
  from: number;
  /** Inclusive, epoch ms. */
  to: number;
}

// ---------------------------------------------------------------------------------------------
// Diff

export function diffSnapshots(previous: Snapshot, current: Snapshot): DriftItem[] {
  const items: DriftItem[] = [];
  for (const [id, now] of Object.entries(current.services)) {
    const before = previous.services[id];
    if (before === undefined)
      items.push(driftItem(id, nameOf(id, now), 'service-added', 'Service', 'Service added', ''));
    else items.push(...serviceDrift(id, before, now));
  }
  for (const [id, before] of Object.entries(previous.services)) {
    if (current.services[id] === undefined)
      items.push(driftItem(id, nameOf(id, before), 'service-removed', 'Service', 'Service removed', ''));
  }
  return sortByService(items);
}

function serviceDrift(id: string, before: ServiceSnapshot, now: ServiceSnapshot): DriftItem[] {
  const name = nameOf(id, now);
  const make = (kind: DriftKind, label: DriftLabel, text: string, subject: string) =>
    driftItem(id, name, kind, label, text, subject);
  return [
    ...renameDrift(before, now, make),
    ...releaseChannelDrift(before, now, make),
    ...endpointDrift(before, now, make),
    ...ipDrift(before, now, make),
    ...privateEndpointDrift(before, now, make),
    ...encryptionKeyDrift(before, now, make),
  ];
}

type MakeItem = (kind: DriftKind, label: DriftLabel, text: string, subject: string) => DriftItem;

function driftItem(
  serviceId: string,
  serviceName: string,
  kind: DriftKind,
  label: DriftLabel,
  text: string,
  subject: string,
): DriftItem {
  return { serviceId, serviceName, kind, label, text, subject };
}

const nameOf = (id: string, snapshot: ServiceSnapshot) => snapshot.name || id;

function renameDrift(before: ServiceSnapshot, now: ServiceSnapshot, make: MakeItem): DriftItem[] {
  // An empty name is a record whose name could not be read, not a rename.
  if (!before.name || !now.name || before.name === now.name) return [];
  return [make('renamed', 'Name', `Renamed: ${before.name} → ${now.name}`, now.name)];
}

function releaseChannelDrift(before: ServiceSnapshot, now: ServiceSnapshot, make: MakeItem): DriftItem[] {
  const [was, is] = [before.releaseChannel, now.releaseChannel];
  if (was === undefined || is === undefined || was === is) return [];
  return [make('release-channel-changed', 'Release channel', `Release channel: ${was} → ${is}`, is)];
}

const PROTOCOL_NAMES: Record<SnapshotProtocol, string> = {
  mysql: 'MySQL',
  https: 'HTTPS',
  nativesecure: 'Native secure',
};

function endpointDrift(before: ServiceSnapshot, now: ServiceSnapshot, make: MakeItem): DriftItem[] {
  if (before.endpoints === undefined || now.endpoints === undefined) return [];
  const { added, removed } = setChanges(before.endpoints, now.endpoints);
  // Only MySQL can be switched through the API (and so through the bot); the others are 'Service'.
  const label = (protocol: SnapshotProtocol): DriftLabel => (protocol === 'mysql' ? 'MySQL endpoint' : 'Service');
  return [
    ...added.map((p) => make('endpoint-enabled', label(p), `${PROTOCOL_NAMES[p]} endpoint switched on`, 'on')),
    ...removed.map((p) => make('endpoint-disabled', label(p), `${PROTOCOL_NAMES[p]} endpoint switched off`, 'off')),
  ];
}

function ipDrift(before: ServiceSnapshot, now: ServiceSnapshot, make: MakeItem): DriftItem[] {
  if (before.ipAccessList === undefined || now.ipAccessList === undefined) return [];
  const was = new Map(before.ipAccessList);
  const is = new Map(now.ipAccessList);
  const items: DriftItem[] = [];
  for (const [source, description] of is) {
    const old = was.get(source);
    if (old === undefined)
      items.push({
        ...make('ip-added', 'IP access', `IP access entry added: ${entryText(source, description)}`, source),
        ipDescription: description,
      });
    else if (old !== description) {
      items.push({
        ...make(
          'ip-description-changed',
          'IP access',
          `IP access entry ${source}: description "${old}" → "${description}"`,
          source,
        ),
        ipDescription: description,
      });
    }
  }
  for (const [source, description] of was) {
    if (!is.has(source))
      items.push(make('ip-removed', 'IP access', `IP access entry removed: ${entryText(source, description)}`, source));
  }
  return items;
}

const entryText = (source: string, description: string) => (description ? `${source} (${description})` : source);

function privateEndpointDrift(before: ServiceSnapshot, now: ServiceSnapshot, make: MakeItem): DriftItem[] {
  if (before.privateEndpointIds === undefined || now.privateEndpointIds === undefined) return [];
  const { added, removed } = setChanges(before.privateEndpointIds, now.privateEndpointIds);
  return [
    ...added.map((id) => make('private-endpoint-attached', 'Private endpoint', `Private endpoint attached: ${id}`, id)),
    ...removed.map((id) =>
      make('private-endpoint-detached', 'Private endpoint', `Private endpoint detached: ${id}`, id),
    ),
  ];
}

function encryptionKeyDrift(before: ServiceSnapshot, now: ServiceSnapshot, make: MakeItem): DriftItem[] {
  const [was, is] = [before.tdeKeyId, now.tdeKeyId];
  if (was === undefined || is === undefined || was === is) return [];
  return [make('encryption-key-rotated', 'Encryption key', `Encryption key rotated: ${was} → ${is}`, is)];
}

function setChanges<T>(before: readonly T[], now: readonly T[]): { added: T[]; removed: T[] } {
  const was = new Set(before);
  const is = new Set(now);
  return { added: [...is].filter((v) => !was.has(v)), removed: [...was].filter((v) => !is.has(v)) };
}

const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

/** By service name, so one service's changes read together; within a service, in diff order. */
function sortByService(items: DriftItem[]): DriftItem[] {
  return items.sort(
    (a, b) =>
      collator.compare(a.serviceName, b.serviceName) ||
      (a.serviceId < b.serviceId ? -1 : a.serviceId > b.serviceId ? 1 : 0),
  );
}

// ---------------------------------------------------------------------------------------------
// Attribution

/** One thing an applied request's PATCH body did: the drift it explains, exactly. */
interface AppliedEffect {
  changeId: string;
  kind: DriftKind;
  subject: string;
  /** For IP entries added or re-described: the description the request set. */
  ipDescription?: string;
}

/**
 * Marks the items this bot made: an 'applied' audit entry for the same service, inside the window,
 * whose PATCH body (the structured plan, never its text) did exactly that: the same kind of change
 * to the same entry with the same value. Each effect explains one item at most, so a console
 * change next to a bot change, or one that undid the bot's entry and added another, reads
 * "elsewhere". Entries without their body (written by older versions) explain nothing.
 */
export function attributeDrift(
  items: readonly DriftItem[],
  auditEntries: readonly AuditEntry[],
  window: TimeWindow,
): DriftItem[] {
  const effectsByService = appliedEffects(auditEntries, window);
  const used = new Set<AppliedEffect>();
  return items.map((item) => {
    const effect = (effectsByService.get(item.serviceId) ?? []).find((e) => !used.has(e) && explains(e, item));
    if (effect) used.add(effect);
    return withVia(item, effect);
  });
}

function withVia(item: DriftItem, effect: AppliedEffect | undefined): DriftItem {
  const { via: _previous, ...rest } = item;
  return effect ? { ...rest, via: { changeId: effect.changeId } } : rest;
}

function explains(effect: AppliedEffect, item: DriftItem): boolean {
  if (effect.kind !== item.kind) return false;
  if (item.label === 'Service') return false; // HTTPS and native endpoints: never through the bot
  const isIp = item.kind === 'ip-added' || item.kind === 'ip-removed' || item.kind === 'ip-description-changed';
  if (!isIp) return effect.subject === item.subject;
  if (!sameBlock(effect.subject, item.subject)) return false;
  return item.kind === 'ip-removed' || (effect.ipDescription ?? '') === (item.ipDescription ?? '');
}

/** The API may write 198.51.100.7 back as 198.51.100.7/32: the same block either way. */
function sameBlock(a: string, b: string): boolean {
  if (a === b) return true;
  const [x, y] = [parseBlock(a), parseBlock(b)];
  return x !== undefined && y !== undefined && x.family === y.family && x.first === y.first && x.prefix === y.prefix;
}

/** Effects of applied entries in the window, per service, newest first. */
function appliedEffects(entries: readonly AuditEntry[], window: TimeWindow): Map<string, AppliedEffect[]> {
  const applied = entries
    .filter((e) => e.action === 'applied' && e.at >= window.from && e.at <= window.to)
    .sort((a, b) => b.at - a.at);
  const byService = new Map<string, AppliedEffect[]>();
  for (const entry of applied) {
    if (!entry.update) continue;
    const effects = byService.get(entry.serviceId) ?? [];
    for (const effect of updateEffects(entry.update)) effects.push({ ...effect, changeId: entry.changeId });
    byService.set(entry.serviceId, effects);
  }
  return byService;
}

/** What a PATCH body does, as the drift a snapshot diff would show for it. */
export function updateEffects(update: ServiceUpdate): Array<Omit<AppliedEffect, 'changeId'>> {
  const effects: Array<Omit<AppliedEffect, 'changeId'>> = [];
  if (update.name !== undefined) effects.push({ kind: 'renamed', subject: update.name });
  if (update.releaseChannel !== undefined)
    effects.push({ kind: 'release-channel-changed', subject: update.releaseChannel });
  for (const endpoint of update.endpoints ?? []) {
    effects.push(
      endpoint.enabled ? { kind: 'endpoint-enabled', subject: 'on' } : { kind: 'endpoint-disabled', subject: 'off' },
    );
  }
  const added = update.ipAccessList?.add ?? [];
  const addedSources = new Set(added.map((entry) => entry.source));
  for (const entry of update.ipAccessList?.remove ?? []) {
    // remove + add of one source is how the bot re-describes an entry: not a removal.
    if (!addedSources.has(entry.source)) effects.push({ kind: 'ip-removed', subject: entry.source });
  }
  const removedSources = new Set((update.ipAccessList?.remove ?? []).map((entry) => entry.source));
  for (const entry of added) {
    const kind = removedSources.has(entry.source) ? 'ip-description-changed' : 'ip-added';
    effects.push({ kind, subject: entry.source, ipDescription: entry.description ?? '' });
  }
  for (const id of update.privateEndpointIds?.add ?? [])
    effects.push({ kind: 'private-endpoint-attached', subject: id });
  for (const id of update.privateEndpointIds?.remove ?? [])
    effects.push({ kind: 'private-endpoint-detached', subject: id });
  if (update.transparentDataEncryptionKeyId !== undefined)
    effects.push({ kind: 'encryption-key-rotated', subject: update.transparentDataEncryptionKeyId });
  return effects;
}
