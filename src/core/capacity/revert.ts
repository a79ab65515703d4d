/**
 * Undoing a capacity or power change (`scale orders-prod replicas 6 for 4h`, `start staging for
 * 8h`): the inverse request restores exactly the values the change replaced, and is made only
 * while the service still shows the values the change set; if someone changed them by hand in the
 * meantime, the revert does nothing and says why. Pure.
 */
import { ReplicaScalingUpdateSchema, type ReplicaScalingUpdate, type ServiceRecord } from '../service/schema.js';
import type { CapacityChange, CapacityOperation, PowerAction } from './plan.js';
import { capacityDifferences, differencesText, fieldsOf, type CapacityValues } from './values.js';

export type RevertPlan =
  | {
      ok: true;
      operation: CapacityOperation;
      /** The values the revert brings back (the change's `before`; for power, the state it settles in). */
      restores: CapacityValues;
    }
  | { ok: false; reason: string };

const INVERSE_POWER: Record<PowerAction, PowerAction | undefined> = { stop: 'start', start: 'stop', wake: undefined };

/**
 * The request that restores exactly what `change` replaced, regardless of the service's state now
 * (see planRevert for the check against it). Not every change has one: a woken service idles again
 * by itself, and a value the record did not show before cannot be restored exactly.
 */
export function inverseOf(change: CapacityChange): RevertPlan {
  const { operation, before, target } = change;
  if (operation.kind === 'state') {
    const action = target.kind === 'power' ? target.action : undefined;
    const inverse = action === undefined ? undefined : INVERSE_POWER[action];
    if (inverse === undefined) {
      return {
        ok: false,
        reason: 'A woken service goes idle again by itself after its idle timeout: there is nothing to undo.',
      };
    }
    return {
      ok: true,
      operation: { kind: 'state', command: inverse === 'start' ? 'start' : 'stop' },
      restores: { state: inverse === 'start' ? 'running' : 'stopped' },
    };
  }
  const touched = Object.keys(operation.body) as Array<keyof ReplicaScalingUpdate>;
  const missing = touched.filter((field) => field !== 'autoscalingMode' && before[field] === undefined);
  if (missing.length > 0) {
    return {
      ok: false,
      reason: `The service did not show its previous ${missing.join(', ')}, so there is no exact value to restore.`,
    };
  }
  const body: Record<string, unknown> = {};
  for (const field of fieldsOf(before)) if (field !== 'state') body[field] = before[field];
  const parsed = ReplicaScalingUpdateSchema.safeParse(body);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('; ');
    return { ok: false, reason: `The previous values cannot be sent back to the API (${problems}).` };
  }
  return { ok: true, operation: { kind: 'replicaScaling', body: parsed.data }, restores: { ...before } };
}

/**
 * The revert of `change` for the service as it is now: its inverse, provided the service still
 * shows what the change set. Otherwise a sentence saying what was changed by hand, for the thread.
 */
export function planRevert(service: ServiceRecord, change: CapacityChange): RevertPlan {
  const differences = capacityDifferences(service, change.after);
  if (differences.length > 0) {
    const name = service.name || service.id;
    return {
      ok: false,
      reason: `${name} was changed by hand since (${differencesText(differences)}), so the bot leaves it as it is.`,
    };
  }
  return inverseOf(change);
}
