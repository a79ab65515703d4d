/**
 * A change's target read afresh: the service record, and the parts of it the API keeps apart that
 * the change touches (its backup configuration…), attached as `parts` so that the core reads them
 * like any field. The reads go out together: a target costs one round trip of time, not several.
 */
import { partsOfPlan } from '../core/change/kinds/index.js';
import { keyRecord, memberRecord } from '../core/change/target-records.js';
import type { ChangePlan } from '../core/change/types.js';
import type { PartName } from '../core/service/parts.js';
import type { ServiceRecord } from '../core/service/schema.js';
import type { ReadOptions, ServiceDirectory } from '../ports/service-directory.js';

export async function readTarget(
  cloud: ServiceDirectory,
  serviceId: string,
  parts: readonly PartName[],
  options: ReadOptions,
): Promise<ServiceRecord | undefined> {
  const [service, read] = await Promise.all([
    cloud.getService(serviceId, options),
    readParts(cloud, serviceId, parts, options),
  ]);
  return service && attach(service, read);
}

/** The record given, with the parts read afresh (none to read: the record as it is, no call). */
export async function withParts(
  cloud: ServiceDirectory,
  service: ServiceRecord,
  parts: readonly PartName[],
  options: ReadOptions,
): Promise<ServiceRecord> {
  return attach(service, await readParts(cloud, service.id, parts, options));
}

type ReadParts = Array<readonly [PartName, unknown]>;

function readParts(
  cloud: ServiceDirectory,
  serviceId: string,
  parts: readonly PartName[],
  options: ReadOptions,
): Promise<ReadParts> {
  return Promise.all(parts.map(async (part) => [part, await cloud.readPart(serviceId, part, options)] as const));
}

function attach(service: ServiceRecord, read: ReadParts): ServiceRecord {
  if (read.length === 0) return service;
  return { ...service, parts: { ...service.parts, ...Object.fromEntries(read) } };
}

/** The target of a plan read afresh: a member or a key by its id, else the service with the parts it touches. */
export async function readPlanTarget(
  cloud: ServiceDirectory,
  plan: ChangePlan,
  options: ReadOptions,
): Promise<ServiceRecord | undefined> {
  const target = plan.target;
  if (target === undefined) return readTarget(cloud, plan.serviceId, partsOfPlan(plan), options);
  if (target.type === 'member') {
    const [members, roles] = await Promise.all([cloud.listMembers(options), cloud.listRoles(options)]);
    const member = members.find((m) => m.userId === target.userId);
    return member && memberRecord(member, roles);
  }
  const [list, roles] = await Promise.all([cloud.listApiKeys(options), cloud.listRoles(options)]);
  const key = list.keys.find((k) => k.id === target.keyId);
  return key && keyRecord(key, roles, list.ownKeyId);
}
