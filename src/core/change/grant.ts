/**
 * A temporary change once applied (a grant): the requests the bot files for it, pure. Its revert
 * is CR-X-R, planned against the service as it is now (CR-X-R2, CR-X-R3… after attempts that
 * failed with something left to take back); an extension sends nothing and moves the revert.
 */
import { planChange } from './plan.js';
import { currentState } from './state.js';
import { changeSummary } from './summary.js';
import { formatDuration, intentIsEmpty, planRevert, withoutTakenOver, type LaterChange } from './temporary.js';
import { operationsOf } from './operations.js';
import type { ChangePlan, ChangeRequest, FieldChange, TouchedState } from './types.js';
import { isDeletedState, isMovingState } from '../service/states.js';
import type { ServiceRecord } from '../service/schema.js';

/** Who reverts at expiry, in the audit trail and the thread. */
export const BOT_ACTOR = 'the bot';
/** A revert waits this long for a replica to apply it (far beyond any outage worth surviving). */
export const REVERT_PENDING_MS = 7 * 24 * 3600 * 1000;
/** Reverts of one grant tried before the bot gives up and asks for a hand (loudly, hourly). */
export const REVERT_ATTEMPTS_MAX = 20;
/** A revert whose record is missing (or that gave up) is looked at again this much later. */
export const REVERT_LOOK_AGAIN_MS = 3600_000;
const REVERT_RETRY_FIRST_MS = 5_000;
const REVERT_RETRY_MAX_MS = 10 * 60_000;

/** A failing revert is tried again after this, doubling from 5 s up to 10 minutes. */
export function revertRetryMs(failures: number): number {
  return Math.min(REVERT_RETRY_MAX_MS, REVERT_RETRY_FIRST_MS * 2 ** (Math.max(1, failures) - 1));
}

/** CR-X-R for the first attempt at reverting CR-X, then CR-X-R2, CR-X-R3… */
export function revertIdOf(originalId: string, attempt: number): string {
  return attempt <= 1 ? `${originalId}-R` : `${originalId}-R${attempt}`;
}

export function attemptOf(revertId: string): number {
  const match = /-R(\d*)$/.exec(revertId);
  return match?.[1] ? Number(match[1]) : 1;
}

/** A revert with no operation left: everything it would take back was already changed. */
export function sendsNothing(plan: ChangePlan): boolean {
  return operationsOf(plan).length === 0;
}

/** An attempt that ended without being applied: failed, or left pending until it expired (or cancelled). */
export function endedUnapplied(revert: ChangeRequest): boolean {
  return (
    revert.status === 'failed' ||
    revert.status === 'expired' ||
    revert.status === 'cancelled' ||
    revert.status === 'rejected'
  );
}

/**
 * A revert that ended unapplied with something left to take back: tried again (the access must not
 * stay open because one attempt failed or expired); one that found nothing left is final.
 */
export function isRetryable(revert: ChangeRequest): boolean {
  return endedUnapplied(revert) && !sendsNothing(revert.plan);
}

export type RevertCandidate = { ok: true; candidate: ChangeRequest } | { ok: false; notYet: string };

/**
 * The revert attempt `revertId` of a grant, planned against the service as it is now (`read`),
 * leaving alone what later approved changes took over. Something left to take back that cannot be
 * asked for while the service is on its way (a stop's revert while it is still stopping) is not
 * filed: `notYet` says why, and the sweep tries again later.
 */
export function revertCandidate(
  original: ChangeRequest,
  read: ServiceRecord | undefined,
  later: readonly LaterChange[],
  ids: { revertId: string; actorId: string },
  now: number,
): RevertCandidate {
  const service = read && !isDeletedState(read.state) ? read : undefined;
  const { intent, leftAlone } = service
    ? withoutTakenOver(planRevert(original.plan, service), later)
    : { intent: {}, leftAlone: ['The service no longer exists.'] };
  const planned = service && !intentIsEmpty(intent) ? planChange(service, intent) : undefined;
  const problems = planned && !planned.ok ? planned.problems.map((p) => p.message) : [];
  if (problems.length > 0 && isMovingState(service?.state)) return { ok: false, notYet: problems.join(' ') };
  const plan: ChangePlan = planned?.ok
    ? { ...planned.plan, warnings: [...leftAlone, ...planned.plan.warnings] }
    : {
        serviceId: original.plan.serviceId,
        serviceName: original.plan.serviceName,
        ...(original.plan.target ? { target: original.plan.target } : {}),
        update: {},
        changes: [],
        warnings: [...leftAlone, ...problems],
        before: {},
      };
  return {
    ok: true,
    candidate: {
      id: ids.revertId,
      channelId: original.channelId,
      // A revert changes the organization of the change it takes back.
      ...(original.organization ? { organization: original.organization } : {}),
      requesterId: ids.actorId,
      plan,
      createdAt: now,
      expiresAt: now + REVERT_PENDING_MS,
      status: 'pending',
      revertOf: original.id,
      ...(original.messageTs ? { threadTs: original.messageTs } : {}),
    },
  };
}

const utcMinute = (at: number) => `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * An extension sends nothing; approving it moves the revert by the grant's duration from
 * its planned time (`dueAt`), as the store does. Its stale check covers the granted
 * fields, so an extension approved after the grant was taken back (or changed) is refused.
 */
export function extensionPlan(original: ChangeRequest, service: ServiceRecord, dueAt: number): ChangePlan {
  const now = currentState(service);
  const fields = Object.keys(original.plan.before) as Array<keyof TouchedState>;
  const before: TouchedState = {};
  for (const field of fields) Object.assign(before, { [field]: now[field] });
  const durationMs = original.temporary?.durationMs ?? 0;
  const duration = formatDuration(durationMs);
  const change: FieldChange = {
    field: fields[0] ?? 'ipAccessList',
    label: `Revert of ${original.id}`,
    before: `at ${utcMinute(dueAt)}`,
    after: `at ${utcMinute(dueAt + durationMs)} (${duration} later)`,
  };
  return {
    serviceId: original.plan.serviceId,
    serviceName: original.plan.serviceName,
    // A member or a key is read afresh as such, and its own-roles check applies to the extension too.
    ...(original.plan.target ? { target: original.plan.target } : {}),
    update: {},
    changes: [change],
    warnings: [`Keeps ${changeSummary(original.plan.changes)} for ${duration} more.`],
    before,
  };
}
