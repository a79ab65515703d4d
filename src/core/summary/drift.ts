/**
 * What changed between two snapshots of the same summary, and which of those changes this bot
 * made (from the audit trail) rather than the console, Terraform or another tool.
 */
import type { AuditEntry } from '../change/audit.js';
import { DRIFT_OUTSIDE_BOT, type DriftFinding, type UpdateEffect } from '../change/kinds/drift-parts.js';
import type { ServiceUpdate } from '../service/schema.js';
import { DRIFT_PARTS, type ServiceSnapshot, type Snapshot } from './snapshot.js';
import type { ChangeAuthor } from './change-author.js';

export type { ChangeAuthor } from './change-author.js';

/** A service appearing or going; every other kind of drift is named by its kind module (kinds/drift-parts.ts). */
export type DriftKind = 'service-added' | 'service-removed' | (string & {});

export interface DriftItem {
  serviceId: string;
  /** The current name, or the last known one for a removed service. */
  serviceName: string;
  kind: DriftKind;
  /** The change requests' label for the field ("IP access"); "Service" for what the bot never does. */
  label: string;
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

/** Made by this bot: an applied request of the bot explains it, or the activity log names only the bot's key. */
export function isBotChange(item: Pick<DriftItem, 'via' | 'authors'>): boolean {
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
    if (before === undefined) items.push(serviceItem(id, nameOf(id, now), 'service-added', 'Service added'));
    else items.push(...serviceDrift(id, before, now));
  }
  for (const [id, before] of Object.entries(previous.services)) {
    if (current.services[id] === undefined)
      items.push(serviceItem(id, nameOf(id, before), 'service-removed', 'Service removed'));
  }
  return sortByService(items);
}

function serviceItem(serviceId: string, serviceName: string, kind: DriftKind, text: string): DriftItem {
  return { serviceId, serviceName, kind, label: DRIFT_OUTSIDE_BOT, text, subject: '' };
}

/** Each kind's findings, where both snapshots know its value. */
function serviceDrift(serviceId: string, before: ServiceSnapshot, now: ServiceSnapshot): DriftItem[] {
  const serviceName = nameOf(serviceId, now);
  return DRIFT_PARTS.flatMap((drift) => {
    const [was, is] = [drift.schema.safeParse(before[drift.key]), drift.schema.safeParse(now[drift.key])];
    if (!was.success || !is.success || was.data === undefined || is.data === undefined) return [];
    return drift.diff(was.data, is.data).map((finding: DriftFinding) => ({ serviceId, serviceName, ...finding }));
  });
}

const nameOf = (id: string, snapshot: ServiceSnapshot) => snapshot.name || id;

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
interface AppliedEffect extends UpdateEffect {
  changeId: string;
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
  if (effect.kind !== item.kind || item.label === DRIFT_OUTSIDE_BOT) return false;
  const drift = DRIFT_PARTS.find((part) => Object.hasOwn(part.activityTypes, item.kind));
  return drift?.explains ? drift.explains(effect, item) : effect.subject === item.subject;
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
export function updateEffects(update: ServiceUpdate): UpdateEffect[] {
  return DRIFT_PARTS.flatMap((drift) => drift.effects(update));
}
