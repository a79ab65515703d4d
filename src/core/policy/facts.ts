/**
 * What a change request is matched on: the service before and after the change, the kinds of
 * change it makes and the risks it carries. Derived from the plan, so the rules see exactly what
 * approval would send.
 */
import type { ServiceRecord } from '../service/schema.js';
import { defaultApprovalsOf, KINDS, KIND_LIST } from '../change/kinds/index.js';
import type { ChangePlan } from '../change/types.js';
import { RISKS, type RequestFacts, type Risk, type ServiceSide } from './types.js';

export function serviceSide(service: Pick<ServiceRecord, 'id' | 'name' | 'tags'>): ServiceSide {
  return {
    id: service.id,
    name: service.name,
    tags: new Map((service.tags ?? []).map((tag) => [tag.key, tag.value ?? ''])),
  };
}

/**
 * `temporary`: the request is time-boxed, so it also carries the risks of its revert, which is
 * applied later without asking anyone (a `start … for` is a stop then).
 */
export function requestFacts(service: ServiceRecord, plan: ChangePlan, temporary = false): RequestFacts {
  const before = serviceSide(service);
  const after: ServiceSide = { ...before, name: plan.update.name ?? before.name, tags: tagsAfter(before.tags, plan) };
  return {
    before,
    after,
    changes: [...new Set(plan.changes.map((change) => KINDS[change.field].policyName))],
    risks: planRisks(plan, temporary),
    defaultApprovals: defaultApprovalsOf(plan),
  };
}

/** The API removes before it adds (remove matches the key). */
function tagsAfter(tags: ReadonlyMap<string, string>, plan: ChangePlan): ReadonlyMap<string, string> {
  const edits = plan.update.tags;
  if (!edits) return tags;
  const after = new Map(tags);
  for (const tag of edits.remove ?? []) after.delete(tag.key);
  for (const tag of edits.add ?? []) after.set(tag.key, tag.value ?? '');
  return after;
}

/** The risks of every kind the plan touches (and of its revert, when temporary), in the order RISKS lists them. */
export function planRisks(plan: ChangePlan, temporary = false): Risk[] {
  const risks = new Set(
    KIND_LIST.flatMap((kind) => [
      ...kind.risks(plan),
      ...(temporary ? (kind.temporary?.revertRisks?.(plan) ?? []) : []),
    ]),
  );
  return RISKS.filter((risk) => risks.has(risk));
}
