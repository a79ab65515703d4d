/**
 * The warnings a capacity or power request carries, in front of the people who approve it: what
 * a stop takes offline, a single replica, capacity halved, a cost that grows fourfold, idle scaling
 * on production, a change to a service that is not running. Pure; plain text (the renderer escapes).
 */
import { rangeText, type Range } from '../service/capacity.js';
import type { ServiceRecord } from '../service/schema.js';
import { stateInfo } from '../service/states.js';
import type { PowerAction } from './plan.js';
import type { CapacityValues } from './values.js';

/** A tag that says production: env=prod, environment=production, or a bare `production` tag. */
export function isTaggedProduction(service: ServiceRecord): boolean {
  return (service.tags ?? []).some((tag) => {
    const key = tag.key.toLowerCase();
    const value = (tag.value ?? '').toLowerCase();
    if (key === 'production' || key === 'prod') return true;
    return (key === 'env' || key === 'environment' || key === 'stage') && (value === 'prod' || value === 'production');
  });
}

/** Clients can reach it: an endpoint is on and an IP access entry or a private endpoint lets them in. */
export function servesTraffic(service: ServiceRecord): boolean {
  const endpointOn = (service.endpoints ?? []).some((endpoint) => endpoint.enabled !== false);
  const reachable = (service.ipAccessList ?? []).length > 0 || (service.privateEndpointIds ?? []).length > 0;
  return endpointOn && reachable;
}

export interface CapacitySides {
  before: CapacityValues;
  after: CapacityValues;
  replicas: { before?: Range; after?: Range };
  memory: { before?: Range; after?: Range };
  total: { before?: Range; after?: Range };
  power?: PowerAction;
}

const halved = (before: Range | undefined, after: Range | undefined) =>
  before !== undefined && after !== undefined && after.max * 2 <= before.max;

/** Warnings for a capacity or power change to `service`, in the order people should read them. */
export function capacityWarnings(service: ServiceRecord, sides: CapacitySides, largeGrowth: number): string[] {
  const name = service.name || service.id;
  const warnings: string[] = [];
  if (sides.power === 'stop') {
    if (isTaggedProduction(service))
      warnings.push(`${name} is tagged production: stopping it takes it offline until someone starts it again.`);
    else if (servesTraffic(service))
      warnings.push(`${name} accepts connections: clients will fail to connect while it is stopped.`);
  }
  const { replicas, memory, total } = sides;
  if (replicas.after?.min === 1 && (replicas.before?.min ?? 1) > 1)
    warnings.push(`${name} may run a single replica: no redundancy while that replica restarts or is upgraded.`);
  if (halved(replicas.before, replicas.after) && replicas.before && replicas.after)
    warnings.push(
      `Replicas go from ${rangeText(replicas.before)} to ${rangeText(replicas.after)}, down by half or more: make sure the load still fits.`,
    );
  if (halved(memory.before, memory.after) && memory.before && memory.after)
    warnings.push(
      `Memory per replica goes from ${rangeText(memory.before)} GB to ${rangeText(memory.after)} GB, down by half or more: make sure the queries still fit.`,
    );
  if (total.before && total.after && total.before.max > 0 && total.after.max >= largeGrowth * total.before.max)
    warnings.push(
      `Total memory grows from ${rangeText(total.before)} GB to ${rangeText(total.after)} GB, ${largeGrowth}× or more: the cost grows with it.`,
    );
  if (sides.after.idleScaling === true && sides.before.idleScaling !== true && isTaggedProduction(service))
    warnings.push(
      `${name} is tagged production: with idle scaling on it pauses when idle, and the first query after waits for it to wake.`,
    );
  const state = service.state;
  if (sides.power === undefined && state !== undefined && state !== 'running' && state !== 'idle')
    warnings.push(
      `${name} is ${stateInfo(state).label} right now: the change is made to a service that is not running.`,
    );
  return warnings;
}
