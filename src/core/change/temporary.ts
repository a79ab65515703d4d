/**
 * Time-boxed changes and undo, decided against the service as it is now: what a revert removes,
 * what an undo files, and which durations are acceptable. Pure: no clock, no I/O.
 */
import type { ServiceRecord, ServiceUpdate } from '../service/schema.js';
import { KIND_LIST, kindOfIntent, TEMPORARY_KINDS, type PlannedReverse } from './kinds/index.js';
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
 * Only changes the bot can take back exactly can be temporary: new IP entries (not a new
 * description of a listed one), MySQL switched on, and capacity and power (restored to the values
 * they replaced). Each kind says whether it grants (kinds/*: `temporary`).
 */
export function temporaryPlanProblem(intent: ChangeIntent, plan: ChangePlan): string | undefined {
  const asked = Object.entries(intent)
    .filter(([, value]) => value !== undefined)
    .map(([key]) => kindOfIntent(key));
  if (!asked.every((kind) => kind?.temporary?.grants(intent)))
    return 'Only ip add, endpoint … mysql on, scale, idle, stop and start can be temporary: the bot can take those back exactly.';
  for (const kind of new Set(asked)) {
    const problem = kind?.temporary?.problem(plan);
    if (problem) return problem;
  }
  return undefined;
}

export type { PlannedReverse } from './kinds/index.js';

/**
 * What the revert of a temporary change does now: remove the IP entries it added that are still
 * listed with that source, switch MySQL off if it is still on. Anything someone else already
 * changed is left alone and said so.
 */
export function planRevert(plan: ChangePlan, service: ServiceRecord): PlannedReverse {
  const reverse: PlannedReverse = { intent: {}, leftAlone: [] };
  for (const kind of TEMPORARY_KINDS) kind.temporary?.revert(plan, service, reverse);
  return reverse;
}

/**
 * The inverse of an applied change, planned against the service as it is now: each part is
 * undone only if the service still shows it as the change left it; parts already undone (or
 * changed again since) are dropped and said so.
 */
export function planUndo(plan: ChangePlan, service: ServiceRecord): PlannedReverse {
  const reverse: PlannedReverse = { intent: {}, leftAlone: [] };
  for (const kind of KIND_LIST) kind.undo(plan, service, reverse);
  return reverse;
}

export function intentIsEmpty(intent: ChangeIntent): boolean {
  return Object.values(intent).every((value) => value === undefined);
}

/** An applied change after the grant, as the audit trail keeps it (its id and the PATCH body it sent). */
export interface LaterChange {
  changeId: string;
  update?: ServiceUpdate;
}

/**
 * A later approved change to what a grant opened takes it over: the revert leaves those parts
 * alone (an IP entry re-described or removed and re-added by a later request, the MySQL endpoint
 * switched by one) and says which request took them over.
 */
export function withoutTakenOver(reverse: PlannedReverse, later: readonly LaterChange[]): PlannedReverse {
  const intent = { ...reverse.intent };
  const leftAlone = [...reverse.leftAlone];
  const takenBy = new Map<string, string>();
  let mysqlTakenBy: string | undefined;
  for (const change of later) {
    const list = change.update?.ipAccessList;
    for (const entry of [...(list?.add ?? []), ...(list?.remove ?? [])]) takenBy.set(entry.source, change.changeId);
    if (change.update?.endpoints?.some((e) => e.protocol === 'mysql')) mysqlTakenBy = change.changeId;
  }
  if (intent.ipRemove) {
    const kept = intent.ipRemove.filter((source) => !takenBy.has(source));
    for (const source of intent.ipRemove.filter((s) => takenBy.has(s)))
      leftAlone.push(
        `${source} was changed since by ${takenBy.get(source) ?? ''}, approved later, so the revert leaves it.`,
      );
    if (kept.length > 0) intent.ipRemove = kept;
    else delete intent.ipRemove;
  }
  if (intent.mysqlEndpoint !== undefined && mysqlTakenBy) {
    leftAlone.push(
      `The MySQL endpoint was switched since by ${mysqlTakenBy}, approved later, so the revert leaves it.`,
    );
    delete intent.mysqlEndpoint;
  }
  return { intent, leftAlone };
}
