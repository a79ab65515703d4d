/**
 * Two open requests of one service that change the same thing: whichever is applied second finds
 * the service changed and fails as stale. Said when the second is filed, naming the first. In a
 * set (IP access, private endpoints, tags) "the same" is the same entry; a capacity change whose
 * total memory another request moves (replicas against memory per replica) counts too.
 */
import { KINDS } from './kinds/index.js';
import { sizedByTotal } from './state.js';
import type { ChangePlan, ChangeRequest, TouchedField } from './types.js';

/** What `plan` changes that `other` changes too, as people read it ("IP access 192.0.2.1", "Replicas"). */
export function sharedChanges(plan: ChangePlan, other: ChangePlan): string[] {
  const shared: string[] = [];
  for (const field of Object.keys(plan.before) as TouchedField[]) {
    if (!(field in other.before)) continue;
    const label = plan.changes.find((change) => change.field === field)?.label ?? field;
    const kind = KINDS[field];
    if (!kind.touchedEntries) {
      shared.push(label);
      continue;
    }
    const theirs = new Set(kind.touchedEntries(other));
    const both = kind.touchedEntries(plan).filter((entry) => theirs.has(entry));
    if (both.length > 0) shared.push(`${label} ${both.join(', ')}`);
  }
  if (sizedByTotal(plan) && movesTotal(other) && !shared.length) shared.push('the total memory');
  return shared;
}

const movesTotal = (plan: ChangePlan) => 'replicas' in plan.before || 'replicaMemory' in plan.before;

/** The sentence for one earlier open request that changes the same thing, or undefined. */
export function overlapWarning(plan: ChangePlan, earlier: ChangeRequest): string | undefined {
  const shared = sharedChanges(plan, earlier.plan);
  if (shared.length === 0) return undefined;
  return `${earlier.id}, still open, also changes ${shared.join('; ')} of this service: whichever of the two is applied second will not be (the service will have changed), and can then be asked again.`;
}
