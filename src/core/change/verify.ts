/**
 * Does the service now show the effect of a plan? Used when an update's outcome is unknown (a
 * timeout or a 5xx on PATCH, or a replica that died mid-update): re-read the service and decide
 * from what it shows, instead of guessing or replaying the change. Each kind checks its part.
 */
import type { ServiceRecord } from '../service/schema.js';
import { KIND_LIST } from './kinds/index.js';
import type { ChangePlan } from './types.js';

export function planIsVisible(plan: ChangePlan, service: ServiceRecord): boolean {
  return KIND_LIST.every((kind) => kind.visible(plan.update, service));
}
