/** The fields of a service record that changes touch, read the same way everywhere (kinds/). */
import type { ServiceRecord } from '../service/schema.js';
import { KINDS, KIND_LIST } from './kinds/index.js';
import type { TouchedField, TouchedState } from './types.js';

export { mysqlEnabled } from './kinds/mysql-endpoint.js';
export { mayLeaveDefaultChannel } from './kinds/release-channel.js';

export function currentState(service: ServiceRecord): Required<TouchedState> {
  const state: TouchedState = {};
  for (const kind of KIND_LIST) Object.assign(state, { [kind.field]: kind.read(service) });
  return state as Required<TouchedState>;
}

/**
 * The touched fields whose value changed since the request was made. A non-empty answer means
 * approving would apply a change to a service that no longer looks like what people reviewed.
 */
export function staleFields(before: TouchedState, service: ServiceRecord): TouchedField[] {
  return (Object.keys(before) as TouchedField[]).filter((field) => {
    const kind = KINDS[field] as (typeof KIND_LIST)[number];
    return !kind.same(before[field], kind.read(service) ?? undefined);
  });
}
