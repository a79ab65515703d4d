/**
 * In-memory state of one simulated organization (its services, their state transitions under way
 * and the activity log), and the rules of the operations we drive (list with tag filters, PATCH a
 * service; capacity and power in capacity.ts) as pure functions over plain records. The HTTP
 * layer in server.ts only routes, authenticates and wraps these results in the API's envelopes.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  applyReplicaScaling,
  scalingActivityTypes,
  stateTransition,
  validateScalingBody,
  validateStateBody,
} from './capacity.js';
import {
  isIpOrCidr,
  isTagKey,
  isTagValue,
  RELEASE_CHANNELS,
  SERVICE_NAME_MAX,
  TAG_EDITS_MAX,
} from '../core/service/schema.js';

export type { AccessEntryRecord, EndpointRecord, Outcome, ServiceRecordLike, TagRecord } from './records.js';
import type { AccessEntryRecord, EndpointRecord, Outcome, ServiceRecordLike, TagRecord } from './records.js';

const copy = <T>(value: T): T => structuredClone(value);

/** Who made a change, as the activity log names them; an API key's id is its actorId. */
export interface Actor {
  type: 'api' | 'user' | 'support' | 'system';
  id: string;
  /** `actorDetails`: a console user's email, for instance. */
  details?: string;
}

/** A console user, as a change made "in the console" names them. */
export function consoleUser(email: string): Actor {
  return { type: 'user', id: `user-${email.split('@')[0] ?? 'someone'}`, details: email };
}

/** One entry of GET /v1/organizations/{org}/activities (the fields the document lists that we fill). */
export interface ActivityRecord {
  id: string;
  createdAt: string;
  type: string;
  actorType: Actor['type'];
  actorId: string;
  actorDetails?: string;
  organizationId: string;
  /** Absent for an organization's own activities (members, keys). */
  serviceId?: string;
  /** For `openapi_key_update`: the key, and what changed (the document). */
  targetKeyId?: string;
  keyUpdateType?: string;
}

/** What an activity is about besides its type and actor. */
export type ActivityScope = Pick<ActivityRecord, 'serviceId' | 'targetKeyId' | 'keyUpdateType'>;

/** The newest this many activities are kept. */
const ACTIVITIES_KEPT = 10_000;

interface PendingTransition {
  /** The state it settles in; null: the service is gone (a delete). */
  to: string | null;
  at: number;
}

/**
 * The services of one organization, in insertion order (the order the list endpoint returns),
 * the state transitions under way (settled lazily: whoever reads calls settle(now) first, so a
 * fake clock moves them too and nothing is left to cancel on close) and the activity log.
 */
export class OrganizationState {
  private readonly byId = new Map<string, ServiceRecordLike>();
  private readonly transitions = new Map<string, PendingTransition>();
  private readonly log: ActivityRecord[] = [];

  constructor(
    readonly orgId: string,
    records: readonly ServiceRecordLike[] = [],
    /** How long `stopping`, `starting` and `awaking` last. */
    readonly transitionMs = 0,
  ) {
    for (const record of records) this.put(record);
  }

  /** Moves every transition whose time has come to the state it settles in. */
  settle(now: number): void {
    for (const [id, pending] of this.transitions) {
      if (pending.at > now) continue;
      this.transitions.delete(id);
      const record = this.byId.get(id);
      if (pending.to === null) this.byId.delete(id);
      else if (record !== undefined) record.state = pending.to;
    }
  }

  /** Puts the service in `through` now, and in `to` (null: gone) once the transition delay has passed. */
  beginTransition(id: string, through: string, to: string | null, now: number): void {
    const record = this.byId.get(id);
    if (record === undefined) return;
    if (this.transitionMs <= 0) {
      if (to === null) this.byId.delete(id);
      else record.state = to;
      this.transitions.delete(id);
      return;
    }
    record.state = through;
    this.transitions.set(id, { to, at: now + this.transitionMs });
  }

  /** Forgets a transition under way (someone set the state by hand). */
  cancelTransition(id: string): void {
    this.transitions.delete(id);
  }

  recordActivity(serviceId: string, type: string, actor: Actor, now: number): void {
    this.recordScoped({ serviceId }, type, actor, now);
  }

  /** An activity of the organization (a service's if scope.serviceId is set). */
  recordScoped(scope: ActivityScope, type: string, actor: Actor, now: number): void {
    this.log.push({
      id: randomUUID(),
      createdAt: new Date(now).toISOString(),
      type,
      actorType: actor.type,
      actorId: actor.id,
      ...(actor.details === undefined ? {} : { actorDetails: actor.details }),
      organizationId: this.orgId,
      ...scope,
    });
    if (this.log.length > ACTIVITIES_KEPT) this.log.splice(0, this.log.length - ACTIVITIES_KEPT);
  }

  /** Activities created within [from, to] (epoch ms, both inclusive, either open), oldest first. */
  activities(from = -Infinity, to = Infinity): ActivityRecord[] {
    return this.log
      .filter((activity) => {
        const at = Date.parse(activity.createdAt);
        return at >= from && at <= to;
      })
      .map(copy);
  }

  /** The stored records themselves: callers that hand them outside must copy them. */
  list(): readonly ServiceRecordLike[] {
    return [...this.byId.values()];
  }

  get(id: string): ServiceRecordLike | undefined {
    return this.byId.get(id);
  }

  /** Adds the record, or replaces the one with the same id in place (keeping its position). */
  put(record: ServiceRecordLike): void {
    this.byId.set(record.id, copy(record));
  }

  remove(id: string): boolean {
    this.transitions.delete(id);
    return this.byId.delete(id);
  }
}

// ---------------------------------------------------------------------------------------------
// List: tag filters

export interface TagCondition {
  key: string;
  /** Absent: the tag only has to be present. */
  value?: string;
}

/**
 * `tag:KEY` or `tag:KEY=VALUE`, split on the first "=" so a value may itself contain "=".
 * Anything else is undefined: the real API ignores such a filter instead of rejecting it.
 */
export function parseFilter(text: string): TagCondition | undefined {
  if (!text.startsWith('tag:')) return undefined;
  const body = text.slice('tag:'.length);
  const eq = body.indexOf('=');
  const key = eq === -1 ? body : body.slice(0, eq);
  if (key === '') return undefined;
  return eq === -1 ? { key } : { key, value: body.slice(eq + 1) };
}

function hasTag(record: ServiceRecordLike, condition: TagCondition): boolean {
  return (record.tags ?? []).some(
    (tag) => tag.key === condition.key && (condition.value === undefined || (tag.value ?? '') === condition.value),
  );
}

/** The records that satisfy every well-formed filter (AND); malformed filters are dropped. */
export function filterServices(records: readonly ServiceRecordLike[], filters: readonly string[]): ServiceRecordLike[] {
  const conditions = filters.flatMap((text) => parseFilter(text) ?? []);
  return records.filter((record) => conditions.every((condition) => hasTag(record, condition)));
}

// ---------------------------------------------------------------------------------------------
// PATCH: body validation

const AddedAccessEntry = z.strictObject({
  source: z.string().refine(isIpOrCidr, { error: 'must be an IPv4 or IPv6 address or CIDR block' }),
  description: z.string().optional(),
});
// Removal matches on source only, so the source is not checked: an odd one simply matches nothing.
const RemovedAccessEntry = z.strictObject({ source: z.string(), description: z.string().optional() });

const TagBody = z.strictObject({
  key: z.string().refine(isTagKey, { error: 'must match pattern "^[a-zA-Z0-9._-]{1,128}$"' }),
  value: z.string().refine(isTagValue, { error: 'must match pattern "^[a-zA-Z0-9._-]{0,256}$"' }).optional(),
});
const TagList = z.array(TagBody).max(TAG_EDITS_MAX, { error: `must NOT have more than ${TAG_EDITS_MAX} items` });

const UpdateBodySchema = z
  .strictObject({
    name: z
      .string()
      .min(1, { error: 'must NOT have fewer than 1 characters' })
      .max(SERVICE_NAME_MAX, { error: `must NOT have more than ${SERVICE_NAME_MAX} characters` }),
    ipAccessList: z.strictObject({
      add: z.array(AddedAccessEntry).optional(),
      remove: z.array(RemovedAccessEntry).optional(),
    }),
    privateEndpointIds: z.strictObject({
      add: z.array(z.string().min(1)).optional(),
      remove: z.array(z.string()).optional(),
    }),
    releaseChannel: z.enum(RELEASE_CHANNELS, { error: `must be one of: ${RELEASE_CHANNELS.join(', ')}` }),
    endpoints: z.array(
      z.strictObject({
        protocol: z.literal('mysql', { error: 'only the mysql endpoint can be switched' }),
        enabled: z.boolean(),
      }),
    ),
    transparentDataEncryptionKeyId: z.string().min(1),
    tags: z.strictObject({ add: TagList.optional(), remove: TagList.optional() }),
    enableCoreDumps: z.boolean(),
  })
  .partial();

export type ServiceUpdateBody = z.infer<typeof UpdateBodySchema>;

/** "request body.ipAccessList.add[0].source", the way the real API names the offending field. */
function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (text, part) => (typeof part === 'number' ? `${text}[${part}]` : `${text}.${String(part)}`),
    'request body',
  );
}

/** Validates a parsed JSON body; the message is ready to follow the `BAD_REQUEST: ` prefix. */
export function validateUpdateBody(body: unknown): Outcome<ServiceUpdateBody> {
  const parsed = UpdateBodySchema.safeParse(body);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  if (issue === undefined) return { ok: false, message: 'request body is invalid' };
  return { ok: false, message: `${fieldPath(issue.path)}: '${issue.message}'` };
}

// ---------------------------------------------------------------------------------------------
// PATCH: semantics

const MYSQL_PORT = 3306;

/** Rules that depend on the service, not just on the body; checked before anything changes. */
function refusal(record: ServiceRecordLike, update: ServiceUpdateBody): string | undefined {
  // As the official Terraform provider: only development services are held to the default channel.
  if (update.releaseChannel !== undefined && update.releaseChannel !== 'default' && record.tier === 'development') {
    return 'releaseChannel is only available for production services';
  }
  if (update.transparentDataEncryptionKeyId !== undefined && record.hasTransparentDataEncryption !== true) {
    return 'transparentDataEncryptionKeyId requires a service with transparent data encryption enabled';
  }
  const available = new Set(record.availablePrivateEndpointIds ?? []);
  const unavailable = (update.privateEndpointIds?.add ?? []).find((id) => !available.has(id));
  if (unavailable !== undefined) {
    return `private endpoint ${unavailable} is not available to this service`;
  }
  return undefined;
}

/** Remove before add; removal matches on source; adding a known source replaces its description. */
export function patchAccessList(
  current: readonly AccessEntryRecord[],
  change: NonNullable<ServiceUpdateBody['ipAccessList']>,
): AccessEntryRecord[] {
  const removed = new Set((change.remove ?? []).map((entry) => entry.source));
  const next = current.filter((entry) => !removed.has(entry.source)).map(copy);
  for (const added of change.add ?? []) {
    const description = added.description ?? '';
    const existing = next.find((entry) => entry.source === added.source);
    if (existing) existing.description = description;
    else next.push({ source: added.source, description });
  }
  return next;
}

/** Remove before add; attaching an id that is already attached does not duplicate it. */
export function patchPrivateEndpoints(
  current: readonly string[],
  change: NonNullable<ServiceUpdateBody['privateEndpointIds']>,
): string[] {
  const removed = new Set(change.remove ?? []);
  const next = current.filter((id) => !removed.has(id));
  for (const id of change.add ?? []) if (!next.includes(id)) next.push(id);
  return next;
}

/**
 * Tags are keyed, and handled like IP entries: remove before add; removal matches on the key
 * (whatever value the request carries; an absent key is a silent no-op); adding a known key
 * replaces its value.
 */
export function patchTags(current: readonly TagRecord[], change: NonNullable<ServiceUpdateBody['tags']>): TagRecord[] {
  const removed = new Set((change.remove ?? []).map((tag) => tag.key));
  const next = current.filter((tag) => !removed.has(tag.key)).map(copy);
  for (const added of change.add ?? []) {
    const tag: TagRecord = added.value === undefined ? { key: added.key } : { key: added.key, value: added.value };
    const at = next.findIndex((existing) => existing.key === added.key);
    if (at === -1) next.push(tag);
    else next[at] = tag;
  }
  return next;
}

/** The service's own host, as the mysql endpoint shares it with https and nativesecure. */
function serviceHost(record: ServiceRecordLike): string {
  const known = (record.endpoints ?? []).find((endpoint) => typeof endpoint.host === 'string')?.host;
  return (
    known ?? `${record.id.split('-')[0]}.${record.region ?? 'us-east-1'}.${record.provider ?? 'aws'}.clickhouse.cloud`
  );
}

function mysqlEndpoint(record: ServiceRecordLike): EndpointRecord {
  const host = serviceHost(record);
  // ClickHouse Cloud names the MySQL interface user after the service's subdomain.
  return { protocol: 'mysql', host, port: MYSQL_PORT, username: `mysql4${host.split('.')[0]}` };
}

const isMysql = (endpoint: EndpointRecord): boolean => endpoint.protocol === 'mysql';

/** Switches the mysql endpoint on or off; switching it to the state it is already in changes nothing. */
export function patchEndpoints(
  record: ServiceRecordLike,
  switches: NonNullable<ServiceUpdateBody['endpoints']>,
): EndpointRecord[] {
  const current = (record.endpoints ?? []).map(copy);
  // Applying the switches in order leaves the last one in force.
  const wanted = switches.at(-1)?.enabled;
  if (wanted === undefined || wanted === current.some(isMysql)) return current;
  return wanted ? [...current, mysqlEndpoint(record)] : current.filter((endpoint) => !isMysql(endpoint));
}

/**
 * The record after the update, or why the update is refused (a 400 at the wire). Pure: the input
 * record is never modified, so a refused update leaves no trace.
 */
export function applyServiceUpdate(record: ServiceRecordLike, update: ServiceUpdateBody): Outcome<ServiceRecordLike> {
  const refused = refusal(record, update);
  if (refused !== undefined) return { ok: false, message: refused };
  const next = copy(record);
  if (update.name !== undefined) next.name = update.name;
  if (update.ipAccessList) next.ipAccessList = patchAccessList(record.ipAccessList ?? [], update.ipAccessList);
  if (update.privateEndpointIds) {
    next.privateEndpointIds = patchPrivateEndpoints(record.privateEndpointIds ?? [], update.privateEndpointIds);
  }
  if (update.releaseChannel !== undefined) next.releaseChannel = update.releaseChannel;
  if (update.endpoints) next.endpoints = patchEndpoints(record, update.endpoints);
  if (update.transparentDataEncryptionKeyId !== undefined) {
    next.transparentDataEncryptionKeyId = update.transparentDataEncryptionKeyId;
  }
  if (update.tags) next.tags = patchTags(record.tags ?? [], update.tags);
  if (update.enableCoreDumps !== undefined) next.enableCoreDumps = update.enableCoreDumps;
  return { ok: true, value: next };
}

/** What a PATCH of one service did: the record after it, or the HTTP status and message of the refusal. */
export type UpdateResult = { ok: true; value: ServiceRecordLike } | { ok: false; status: 400 | 404; message: string };

export const serviceNotFound = (serviceId: string) => `service ${serviceId} not found`;

/**
 * The activity type each basic setting is logged under. All but the last are the API's names (its
 * current type list has service_update_mysql_interface and service_encryption_key_rotated); no
 * type for tags is published, so that one is a plausible guess.
 */
const UPDATE_ACTIVITY_TYPES: Array<[keyof ServiceUpdateBody, string]> = [
  ['name', 'service_update_name'],
  ['ipAccessList', 'service_update_ip_access_list'],
  ['privateEndpointIds', 'service_update_private_endpoints'],
  ['releaseChannel', 'service_update_release_channel'],
  ['endpoints', 'service_update_mysql_interface'],
  ['transparentDataEncryptionKeyId', 'service_encryption_key_rotated'],
  ['tags', 'service_update_tags'],
  ['enableCoreDumps', 'service_update_core_dump'],
];

/** Activity types of a basic-settings PATCH, one per setting it touches. */
function updateActivityTypes(update: ServiceUpdateBody): string[] {
  return UPDATE_ACTIVITY_TYPES.filter(([field]) => update[field] !== undefined).map(([, type]) => type);
}

const mysqlOn = (record: ServiceRecordLike) => (record.endpoints ?? []).some(isMysql);
const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The capacity fields each scaling activity type covers. */
const SCALING_FIELDS: Array<[string, readonly string[]]> = [
  ['service_update_autoscaling_memory', ['minReplicaMemoryGb', 'maxReplicaMemoryGb', 'replicaMemoryGb']],
  ['service_update_autoscaling_replicas', ['numReplicas', 'minReplicas', 'maxReplicas', 'autoscalingMode']],
  ['service_update_autoscaling_idling', ['idleScaling', 'idleTimeoutMinutes']],
];

/** The activity a change of state is logged under (a console click on stop, start or wake). */
function stateActivityType(from: string | undefined, to: string | undefined): string | undefined {
  if (from === to || to === undefined) return undefined;
  if (to === 'stopped' || to === 'stopping') return 'service_stop';
  if (to === 'idle') return 'service_idle';
  if (to === 'running' || to === 'starting' || to === 'awaking') {
    return from === 'idle' || to === 'awaking' ? 'service_awaken' : 'service_start';
  }
  return undefined;
}

/**
 * The activity types a change from one record to another would leave in the log, one per kind of
 * setting that differs: what the console logs when someone changes a service there.
 */
export function changedActivityTypes(before: ServiceRecordLike, after: ServiceRecordLike): string[] {
  const types: string[] = [];
  for (const [field, type] of UPDATE_ACTIVITY_TYPES) {
    const differs = field === 'endpoints' ? mysqlOn(before) !== mysqlOn(after) : !sameJson(before[field], after[field]);
    if (differs) types.push(type);
  }
  for (const [type, fields] of SCALING_FIELDS) {
    if (fields.some((field) => !sameJson(before[field], after[field]))) types.push(type);
  }
  const state = stateActivityType(before.state, after.state);
  if (state !== undefined) types.push(state);
  return types;
}

/** The actor of changes made without saying who (the in-process directory). */
export const UNNAMED_API_ACTOR: Actor = { type: 'api', id: 'in-process' };

/** Validates and applies an update to one service of the organization (the HTTP simulator's PATCH, and the in-process directory). */
export function updateService(
  state: OrganizationState,
  serviceId: string,
  body: unknown,
  actor: Actor = UNNAMED_API_ACTOR,
  now = Date.now(),
): UpdateResult {
  return patchRecord(state, serviceId, validateUpdateBody(body), applyServiceUpdate, updateActivityTypes, actor, now);
}

/** A PATCH that takes effect at once: the service must exist, the body be valid, the change apply; then it is recorded. */
function patchRecord<B>(
  state: OrganizationState,
  serviceId: string,
  body: Outcome<B>,
  apply: (record: ServiceRecordLike, body: B) => Outcome<ServiceRecordLike>,
  activityTypes: (body: B) => string[],
  actor: Actor,
  now: number,
): UpdateResult {
  const current = state.get(serviceId);
  if (current === undefined) return { ok: false, status: 404, message: serviceNotFound(serviceId) };
  if (!body.ok) return { ok: false, status: 400, message: body.message };
  const outcome = apply(current, body.value);
  if (!outcome.ok) return { ok: false, status: 400, message: outcome.message };
  state.put(outcome.value);
  for (const type of activityTypes(body.value)) state.recordActivity(serviceId, type, actor, now);
  return { ok: true, value: outcome.value };
}

/** PATCH …/replicaScaling of one service: validated, applied at once, recorded. */
export function scaleService(
  state: OrganizationState,
  serviceId: string,
  body: unknown,
  actor: Actor = UNNAMED_API_ACTOR,
  now = Date.now(),
): UpdateResult {
  state.settle(now);
  return patchRecord(
    state,
    serviceId,
    validateScalingBody(body),
    applyReplicaScaling,
    scalingActivityTypes,
    actor,
    now,
  );
}

/**
 * PATCH …/state of one service: the answer carries the record in its passing state (`stopping`,
 * `starting`, `awaking`), which settles after the organization's transition delay.
 */
export function changeServiceState(
  state: OrganizationState,
  serviceId: string,
  body: unknown,
  actor: Actor = UNNAMED_API_ACTOR,
  now = Date.now(),
): UpdateResult {
  state.settle(now);
  const current = state.get(serviceId);
  if (current === undefined) return { ok: false, status: 404, message: serviceNotFound(serviceId) };
  const command = validateStateBody(body);
  if (!command.ok) return { ok: false, status: 400, message: command.message };
  const transition = stateTransition(current, command.value.command);
  if (!transition.ok) return { ok: false, status: 400, message: transition.message };
  state.beginTransition(serviceId, transition.value.through, transition.value.to, now);
  state.recordActivity(serviceId, transition.value.activity, actor, now);
  const after = state.get(serviceId);
  return after === undefined
    ? { ok: false, status: 404, message: serviceNotFound(serviceId) }
    : { ok: true, value: after };
}
