/**
 * Time-boxed changes and undo, decided against the service as it is now: what a revert removes,
 * what an undo files, and which durations are acceptable. Pure: no clock, no I/O.
 */
import type { ServiceRecord, ServiceUpdate } from '../service/schema.js';
import { KIND_LIST, kindOfIntent, TEMPORARY_FORMS, TEMPORARY_KINDS, type PlannedReverse } from './kinds/index.js';
import { listed } from './listed.js';
import type { ChangeIntent, ChangePlan, ChangeRequest, TemporaryTerms, TouchedField } from './types.js';
import { MINUTE_MS } from './durations.js';

export {
  durationProblem,
  formatDuration,
  MINUTE_MS,
  readDuration,
  TEMPORARY_MIN_MS,
  type DurationReading,
} from './durations.js';

/** Reminders come this long before the revert, or at half-time for shorter grants. */
const REMINDER_LEAD_MS = 10 * MINUTE_MS;

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
    return `Only ${listed(TEMPORARY_FORMS)} can be temporary: the bot can take those back exactly.`;
  for (const kind of new Set(asked)) {
    const problem = kind?.temporary?.problem(plan);
    if (problem) return problem;
  }
  return undefined;
}

/** What a capacity or power grant holds until its revert restores it exactly. */
const RESTORED: readonly TouchedField[] = ['replicas', 'replicaMemory', 'idleScaling', 'power', 'serviceQueryEndpoint'];

/**
 * A temporary change of what an active grant of the same service holds (`replicas 8 for 1h` on
 * top of `replicas 6 for 1h`) is refused: its revert would restore the grant's values, the grant's
 * revert would then find them changed and leave them, and the service would never come back to
 * where it began. The grant can be extended or reverted instead.
 */
export function stackedGrantProblem(
  plan: ChangePlan,
  grants: ReadonlyArray<Pick<ChangeRequest, 'id' | 'plan' | 'status'>>,
): string | undefined {
  const fields = new Set(plan.changes.map((change) => change.field).filter((field) => RESTORED.includes(field)));
  for (const grant of grants) {
    if (grant.plan.serviceId !== plan.serviceId) continue;
    const held = grant.plan.changes.find((change) => fields.has(change.field));
    if (held === undefined) continue;
    const name = plan.serviceName || plan.serviceId;
    if (grant.status === 'pending')
      return `${grant.id}, waiting for approval, would already change ${held.label.toLowerCase()} of ${name} for a while: let it be decided first rather than stacking a second temporary change on it.`;
    return `${grant.id} already changes ${held.label.toLowerCase()} of ${name} for a while: extend it or revert it now (buttons in its thread) rather than stacking a second temporary change on it.`;
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
