/**
 * A change request sends an ordered list of operations, each to one endpoint of the Cloud API.
 * Requests stored before operations existed carry only `plan.update`: that is one operation on
 * the update endpoint (or none, for an extension that sends nothing).
 */
import { isDeletedState } from '../service/states.js';
import { capacityDifferences } from '../capacity/values.js';
import { planIsVisible } from './verify.js';
import type { ChangePlan, Operation, PartOperation } from './types.js';
import type { ServiceRecord } from '../service/schema.js';
import { isWriteOnly, partSpec } from '../service/parts.js';

export function operationsOf(plan: ChangePlan): Operation[] {
  if (plan.operations) return plan.operations;
  return Object.keys(plan.update).length > 0 ? [{ endpoint: 'update', body: plan.update }] : [];
}

/**
 * The operation as it must leave now: a member's role list is the one read right before sending
 * with only the asked role added or taken away (the API replaces the whole list), so that a role
 * granted or revoked since the request was filed is neither dropped nor given back.
 */
export function operationOnto(operation: Operation, service: ServiceRecord | undefined): Operation {
  const target = service?.organizationTarget;
  if (operation.endpoint !== 'member' || target?.type !== 'member') return operation;
  const { action, roleId } = operation.change;
  const others = target.member.assignedRoles.map((role) => role.roleId).filter((id) => id !== roleId);
  return { ...operation, body: { assignedRoleIds: action === 'grant' ? [...others, roleId] : others } };
}

/** Does the service show the effect of this operation of the plan? */
export function operationVisible(operation: Operation, plan: ChangePlan, service: ServiceRecord): boolean {
  switch (operation.endpoint) {
    case 'update':
      return planIsVisible({ ...plan, update: operation.body }, service);
    case 'replicaScaling':
      return capacityDifferences(service, operation.expect).length === 0;
    case 'state':
      // A state the change replaced never shows it: an idle service counts as running for a start
      // (it idled since), never for a wake, which it would otherwise confirm without being sent.
      return (
        capacityDifferences(service, operation.expect).length === 0 &&
        (plan.capacity?.before.state === undefined || service.state !== plan.capacity.before.state)
      );
    case 'part':
      return partShows(operation, service.parts?.[operation.part]);
    case 'delete':
      return service.state === 'terminating' || isDeletedState(service.state);
    case 'member': {
      // The role asked is held (a grant) or not (a revoke): the rest of the list is not this change's.
      const target = service.organizationTarget;
      if (target?.type !== 'member') return false;
      const held = target.member.assignedRoles.some((role) => role.roleId === operation.change.roleId);
      return held === (operation.change.action === 'grant');
    }
    case 'apiKey': {
      const target = service.organizationTarget;
      if (target?.type !== 'apiKey') return false;
      const { state, expireAt } = operation.body;
      const sameExpiry = (a: string | null | undefined, b: string | null | undefined) =>
        (a ? Date.parse(a) : null) === (b ? Date.parse(b) : null);
      return (
        (state === undefined || target.key.state === state) &&
        (expireAt === undefined || sameExpiry(target.key.expireAt, expireAt))
      );
    }
  }
}

/**
 * Whether a part read afresh shows what its write set: every field sent reads back as sent (a list
 * as the same members, in any order); a field sent as null (back to the default) is settled by any
 * value, since the default is the API's. A write-only part (the password) never shows: a write
 * whose answer was lost is unknown, never confirmed by a read.
 */
function partShows(operation: PartOperation, part: object | null | undefined): boolean {
  if (isWriteOnly(operation.part)) return false;
  const spec = partSpec(operation.part);
  // The operation's part and body belong together (PartOperation), which an index by a union loses.
  if ('shows' in spec && spec.shows)
    return part !== undefined && (spec.shows as (sent: unknown, read: unknown) => boolean)(operation.body, part);
  if (operation.body === null) return part === null;
  if (!part) return false;
  const now = part as Record<string, unknown>;
  return Object.entries(operation.body).every(([field, sent]) => sent === null || sameValue(now[field], sent));
}

function sameValue(now: unknown, sent: unknown): boolean {
  if (!Array.isArray(sent) || !Array.isArray(now)) return now === sent;
  const members = (list: unknown[]) => JSON.stringify(list.map((item) => JSON.stringify(item)).sort());
  return members(now) === members(sent);
}

/**
 * Whether a fresh read shows the operation done; a service no longer found shows a delete done
 * (and nothing else).
 */
export function readingShows(operation: Operation, plan: ChangePlan, service: ServiceRecord | undefined): boolean {
  return service ? operationVisible(operation, plan, service) : operation.endpoint === 'delete';
}

/** Does the service show every operation of the plan? */
export function allOperationsVisible(plan: ChangePlan, service: ServiceRecord): boolean {
  return operationsOf(plan).every((operation) => operationVisible(operation, plan, service));
}
