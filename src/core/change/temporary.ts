/**
 * Time-boxed changes and undo, decided against the service as it is now: what a revert removes,
 * what an undo files, and which durations are acceptable. Pure: no clock, no I/O.
 */
import type { OutgoingTag, ServiceRecord } from '../service/schema.js';
import { tagText } from './plan.js';
import { currentState } from './state.js';
import type { ChangeIntent, ChangePlan, TemporaryTerms } from './types.js';

export const MINUTE_MS = 60_000;
export const TEMPORARY_MIN_MS = MINUTE_MS;
/** Reminders come this long before the revert, or at half-time for shorter grants. */
const REMINDER_LEAD_MS = 10 * MINUTE_MS;

const UNITS: Record<string, number> = { m: MINUTE_MS, h: 60 * MINUTE_MS, d: 24 * 60 * MINUTE_MS };
const DURATION = /^(\d{1,6})\s*(m|min|mins|minutes?|h|hr|hrs|hours?|d|days?)$/i;

export type DurationReading = { ok: true; ms: number } | { ok: false; message: string };

/** "30m", "2h", "3d" (and the spelled-out units) as milliseconds; range is checked separately. */
export function readDuration(text: string): DurationReading {
  const match = DURATION.exec(text.trim());
  const size = UNITS[match?.[2]?.charAt(0).toLowerCase() ?? ''];
  if (!match || size === undefined)
    return { ok: false, message: 'Write the duration as minutes, hours or days, like 30m, 2h or 3d.' };
  return { ok: true, ms: Number(match[1]) * size };
}

/** A sentence when the duration is outside 1 minute – `maxMs` (TEMPORARY_MAX_SECONDS). */
export function durationProblem(ms: number, maxMs: number): string | undefined {
  if (ms < TEMPORARY_MIN_MS) return 'A temporary change lasts at least 1 minute.';
  if (ms > maxMs)
    return `A temporary change lasts at most ${formatDuration(maxMs)} here; ask for ${formatDuration(maxMs)} or less and extend it later if needed.`;
  return undefined;
}

/** "2h", "1d 6h", "45m": the largest units first, seconds dropped. */
export function formatDuration(ms: number): string {
  const parts: string[] = [];
  let rest = Math.floor(ms / MINUTE_MS);
  for (const [unit, size] of [
    ['d', 1440],
    ['h', 60],
    ['m', 1],
  ] as const) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0) parts.push(`${count}${unit}`);
  }
  return parts.length > 0 ? parts.join(' ') : `${Math.round(ms / 1000)}s`;
}

export function temporaryTerms(durationMs: number): TemporaryTerms {
  const remindAfterMs = durationMs >= 2 * REMINDER_LEAD_MS ? durationMs - REMINDER_LEAD_MS : Math.floor(durationMs / 2);
  return { durationMs, remindAfterMs };
}

/**
 * Only changes that grant access can be temporary, and only if the bot can take back exactly what
 * it added: new IP entries (not a new description of a listed one) and MySQL switched on.
 */
export function temporaryPlanProblem(intent: ChangeIntent, plan: ChangePlan): string | undefined {
  const kinds = Object.entries(intent)
    .filter(([, value]) => value !== undefined)
    .map(([key]) => key);
  const grants = kinds.every((kind) => kind === 'ipAdd' || (kind === 'mysqlEndpoint' && intent.mysqlEndpoint === true));
  if (!grants) return 'Only ip add and endpoint … mysql on can be temporary: they grant access the bot can take back.';
  const listed = new Set((plan.before.ipAccessList ?? []).map((entry) => entry.source));
  const relisted = (plan.update.ipAccessList?.add ?? []).find((entry) => listed.has(entry.source));
  if (relisted)
    return `${relisted.source} is already in the IP access list, so a temporary grant could not take it back without removing the existing entry.`;
  return undefined;
}

export interface PlannedReverse {
  intent: ChangeIntent;
  /** Sentences for the parts left alone because the service no longer shows them as the change left them. */
  leftAlone: string[];
}

/**
 * What the revert of a temporary change does now: remove the IP entries it added that are still
 * listed with that source, switch MySQL off if it is still on. Anything someone else already
 * changed is left alone and said so.
 */
export function planRevert(plan: ChangePlan, service: ServiceRecord): PlannedReverse {
  const now = currentState(service);
  const listed = new Set(now.ipAccessList.map((entry) => entry.source));
  const intent: ChangeIntent = {};
  const leftAlone: string[] = [];
  const added = plan.update.ipAccessList?.add ?? [];
  const stillThere = added.filter((entry) => listed.has(entry.source)).map((entry) => entry.source);
  if (stillThere.length > 0) intent.ipRemove = stillThere;
  for (const entry of added.filter((e) => !listed.has(e.source))) {
    leftAlone.push(
      `${entry.source} is no longer in the IP access list (someone removed it), so there was nothing to remove.`,
    );
  }
  if (plan.update.endpoints?.some((e) => e.protocol === 'mysql' && e.enabled)) {
    if (now.mysqlEndpoint) intent.mysqlEndpoint = false;
    else leftAlone.push('The MySQL endpoint is already off (someone switched it off), so it was left off.');
  }
  return { intent, leftAlone };
}

/**
 * The inverse of an applied change, planned against the service as it is now: each part is
 * undone only if the service still shows it as the change left it; parts already undone (or
 * changed again since) are dropped and said so.
 */
export function planUndo(plan: ChangePlan, service: ServiceRecord): PlannedReverse {
  const now = currentState(service);
  const { update, before } = plan;
  const intent: ChangeIntent = {};
  const leftAlone: string[] = [];
  const keep = (shown: boolean, what: string, apply: () => void) => (shown ? apply() : leftAlone.push(what));

  if (update.name !== undefined && before.name !== undefined) {
    const oldName = before.name;
    keep(now.name === update.name, `The name is no longer ${update.name}.`, () => (intent.name = oldName));
  }
  if (update.releaseChannel !== undefined && typeof before.releaseChannel === 'string') {
    const old = before.releaseChannel as ChangeIntent['releaseChannel'];
    keep(
      now.releaseChannel === update.releaseChannel,
      `The release channel is no longer ${update.releaseChannel}.`,
      () => (intent.releaseChannel = old),
    );
  }
  for (const endpoint of update.endpoints ?? []) {
    if (endpoint.protocol !== 'mysql') continue;
    keep(
      now.mysqlEndpoint === endpoint.enabled,
      `The MySQL endpoint is no longer ${endpoint.enabled ? 'on' : 'off'}.`,
      () => (intent.mysqlEndpoint = !endpoint.enabled),
    );
  }
  if (update.transparentDataEncryptionKeyId !== undefined && typeof before.tdeKeyId === 'string') {
    const oldKey = before.tdeKeyId;
    keep(
      now.tdeKeyId === update.transparentDataEncryptionKeyId,
      'The encryption key has changed again since.',
      () => (intent.tdeKeyId = oldKey),
    );
  }
  undoIpAccess(plan, now.ipAccessList, intent, leftAlone);
  undoPrivateEndpoints(plan, now.privateEndpointIds, intent, leftAlone);
  undoTags(plan, now.tags, intent, leftAlone);
  return { intent, leftAlone };
}

/** Added tags come off (or get their old value back), removed ones go back on, while the service still shows the change. */
function undoTags(plan: ChangePlan, current: OutgoingTag[], intent: ChangeIntent, leftAlone: string[]): void {
  const edits = plan.update.tags;
  if (!edits) return;
  const valueNow = new Map(current.map((t) => [t.key, t.value ?? '']));
  const before = new Map((plan.before.tags ?? []).map((t) => [t.key, t]));
  const addedKeys = new Set((edits.add ?? []).map((t) => t.key));
  const tagAdd: OutgoingTag[] = [];
  const tagRemove: OutgoingTag[] = [];
  for (const tag of edits.add ?? []) {
    const previous = before.get(tag.key);
    if (valueNow.get(tag.key) !== (tag.value ?? ''))
      leftAlone.push(`Tag ${tagText(tag)} is no longer set as the change left it.`);
    else if (previous) tagAdd.push(previous);
    else tagRemove.push(tag);
  }
  for (const tag of edits.remove ?? []) {
    if (addedKeys.has(tag.key)) continue;
    if (valueNow.has(tag.key)) leftAlone.push(`Tag ${tag.key} is already set again.`);
    else tagAdd.push(tag);
  }
  if (tagAdd.length > 0) intent.tagAdd = tagAdd;
  if (tagRemove.length > 0) intent.tagRemove = tagRemove;
}

function undoIpAccess(
  plan: ChangePlan,
  current: Array<{ source: string; description?: string }>,
  intent: ChangeIntent,
  leftAlone: string[],
): void {
  const listedNow = new Map(current.map((e) => [e.source, e.description ?? '']));
  const listedBefore = new Map((plan.before.ipAccessList ?? []).map((e) => [e.source, e.description ?? '']));
  const added = plan.update.ipAccessList?.add ?? [];
  const addedSources = new Set(added.map((e) => e.source));
  const ipAdd: Array<{ source: string; description?: string }> = [];
  const ipRemove: string[] = [];
  for (const entry of added) {
    const previous = listedBefore.get(entry.source);
    if (listedNow.get(entry.source) !== (entry.description ?? '')) {
      leftAlone.push(`${entry.source} is no longer listed as the change left it.`);
    } else if (previous === undefined) ipRemove.push(entry.source);
    else ipAdd.push(previous ? { source: entry.source, description: previous } : { source: entry.source });
  }
  for (const { source } of plan.update.ipAccessList?.remove ?? []) {
    if (addedSources.has(source)) continue;
    if (listedNow.has(source)) leftAlone.push(`${source} is already back in the IP access list.`);
    else {
      const description = listedBefore.get(source);
      ipAdd.push(description ? { source, description } : { source });
    }
  }
  if (ipAdd.length > 0) intent.ipAdd = ipAdd;
  if (ipRemove.length > 0) intent.ipRemove = ipRemove;
}

function undoPrivateEndpoints(
  plan: ChangePlan,
  attachedNow: string[],
  intent: ChangeIntent,
  leftAlone: string[],
): void {
  const attached = new Set(attachedNow);
  const attach: string[] = [];
  const detach: string[] = [];
  for (const id of plan.update.privateEndpointIds?.add ?? []) {
    if (attached.has(id)) detach.push(id);
    else leftAlone.push(`Private endpoint ${id} is already detached.`);
  }
  for (const id of plan.update.privateEndpointIds?.remove ?? []) {
    if (attached.has(id)) leftAlone.push(`Private endpoint ${id} is already attached again.`);
    else attach.push(id);
  }
  if (attach.length > 0) intent.privateEndpointAttach = attach;
  if (detach.length > 0) intent.privateEndpointDetach = detach;
}

export function intentIsEmpty(intent: ChangeIntent): boolean {
  return Object.values(intent).every((value) => value === undefined);
}
