/**
 * What changed between two snapshots of the same summary, and which of those changes this bot
 * made (from the audit trail) rather than the console, Terraform or another tool.
 */
import type { AuditEntry } from '../change/audit.js';
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

/**
 * The labels change requests use for their fields (src/core/change/plan.ts), which is how an
 * applied audit entry's summary names what it changed; 'Service' is for what the bot never does.
 */
export const CHANGE_LABELS = ['Name', 'Release channel', 'MySQL endpoint', 'IP access', 'Private endpoint', 'Encryption key'] as const;
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
  /** Set when the change was applied through this bot. */
  via?: { changeId: string };
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
    if (before === undefined) items.push(driftItem(id, nameOf(id, now), 'service-added', 'Service', 'Service added', ''));
    else items.push(...serviceDrift(id, before, now));
  }
  for (const [id, before] of Object.entries(previous.services)) {
    if (current.services[id] === undefined) items.push(driftItem(id, nameOf(id, before), 'service-removed', 'Service', 'Service removed', ''));
  }
  return sortByService(items);
}

function serviceDrift(id: string, before: ServiceSnapshot, now: ServiceSnapshot): DriftItem[] {
  const name = nameOf(id, now);
  const make = (kind: DriftKind, label: DriftLabel, text: string, subject: string) => driftItem(id, name, kind, label, text, subject);
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

function driftItem(serviceId: string, serviceName: string, kind: DriftKind, label: DriftLabel, text: string, subject: string): DriftItem {
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

const PROTOCOL_NAMES: Record<SnapshotProtocol, string> = { mysql: 'MySQL', https: 'HTTPS', nativesecure: 'Native secure' };

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
    if (old === undefined) items.push(make('ip-added', 'IP access', `IP access entry added: ${entryText(source, description)}`, source));
    else if (old !== description) {
      items.push(make('ip-description-changed', 'IP access', `IP access entry ${source}: description "${old}" → "${description}"`, source));
    }
  }
  for (const [source, description] of was) {
    if (!is.has(source)) items.push(make('ip-removed', 'IP access', `IP access entry removed: ${entryText(source, description)}`, source));
  }
  return items;
}

const entryText = (source: string, description: string) => (description ? `${source} (${description})` : source);

function privateEndpointDrift(before: ServiceSnapshot, now: ServiceSnapshot, make: MakeItem): DriftItem[] {
  if (before.privateEndpointIds === undefined || now.privateEndpointIds === undefined) return [];
  const { added, removed } = setChanges(before.privateEndpointIds, now.privateEndpointIds);
  return [
    ...added.map((id) => make('private-endpoint-attached', 'Private endpoint', `Private endpoint attached: ${id}`, id)),
    ...removed.map((id) => make('private-endpoint-detached', 'Private endpoint', `Private endpoint detached: ${id}`, id)),
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
  return items.sort((a, b) => collator.compare(a.serviceName, b.serviceName) || (a.serviceId < b.serviceId ? -1 : a.serviceId > b.serviceId ? 1 : 0));
}

// ---------------------------------------------------------------------------------------------
// Attribution

/** One "Label: before → after" part of an applied change's summary. */
interface AppliedPart {
  changeId: string;
  label: ChangeLabel;
  text: string;
}

/**
 * Marks the items this bot made: an 'applied' audit entry for the same service, inside the window,
 * whose summary has a part with the item's label. Each part explains one item at most, and a part
 * that names the item's subject is preferred, so a console change next to a bot change of the
 * same kind on the same service still reads "elsewhere", and each item names its own request.
 */
export function attributeDrift(items: readonly DriftItem[], auditEntries: readonly AuditEntry[], window: TimeWindow): DriftItem[] {
  const partsByService = appliedParts(auditEntries, window);
  const used = new Set<AppliedPart>();
  const claim = (item: DriftItem, accept: (part: AppliedPart) => boolean): AppliedPart | undefined => {
    const part = (partsByService.get(item.serviceId) ?? []).find((p) => !used.has(p) && p.label === item.label && accept(p));
    if (part) used.add(part);
    return part;
  };
  // Every exact match is claimed before any item falls back to a part of the right label alone.
  const exact = items.map((item) => claim(item, (part) => mentions(part.text, item.subject)));
  return items.map((item, i) => withVia(item, exact[i] ?? claim(item, () => true)));
}

function withVia(item: DriftItem, part: AppliedPart | undefined): DriftItem {
  const { via: _previous, ...rest } = item;
  return part ? { ...rest, via: { changeId: part.changeId } } : rest;
}

/** Parts of applied entries in the window, per service, newest first. */
function appliedParts(entries: readonly AuditEntry[], window: TimeWindow): Map<string, AppliedPart[]> {
  const applied = entries
    .filter((e) => e.action === 'applied' && e.at >= window.from && e.at <= window.to)
    .sort((a, b) => b.at - a.at);
  const byService = new Map<string, AppliedPart[]>();
  for (const entry of applied) {
    const parts = byService.get(entry.serviceId) ?? [];
    for (const part of summaryParts(entry.summary)) parts.push({ ...part, changeId: entry.changeId });
    byService.set(entry.serviceId, parts);
  }
  return byService;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// Split only before a known label, so a description containing "; " does not split a part.
const PART_BOUNDARY = new RegExp(`; (?=(?:${CHANGE_LABELS.map(escapeRegExp).join('|')}): )`);

/** "Name: a → b; IP access: absent → 10.0.0.0/8" becomes its labelled parts. */
export function summaryParts(summary: string): Array<{ label: ChangeLabel; text: string }> {
  return summary.split(PART_BOUNDARY).flatMap((part) => {
    const label = CHANGE_LABELS.find((candidate) => part.startsWith(`${candidate}: `));
    return label ? [{ label, text: part.slice(label.length + 2) }] : [];
  });
}

/** The subject as a whole word of the part (so 10.0.0.0/8 does not match 110.0.0.0/8). */
function mentions(text: string, subject: string): boolean {
  if (subject === '') return false;
  return new RegExp(`(^|[\\s(])${escapeRegExp(subject)}($|[\\s)])`).test(text);
}
