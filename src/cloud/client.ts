/**
 * ClickHouse Cloud API client: list services, read one, read the organization's activities, and
 * the three PATCHes we drive (basic settings, …/replicaScaling and …/state). The three PATCHes
 * share one path through the code: the same strict body check, throttle ticket, beforeSend
 * fencing, retry rules and envelope.
 *
 * Retries, by design:
 * - 429 on any call: wait for X-RateLimit-Reset (plus a safety second, as the official Terraform
 *   provider does) or Retry-After, then try again, within a total time budget. A 429 means the
 *   API refused the request before acting, so this is safe for PATCH too.
 * - 5xx, timeouts and connection errors on reads (GET): bounded retries with exponential backoff
 *   and full jitter.
 * - PATCH is never retried after a 5xx, a timeout or a dropped connection: the change may have been
 *   applied, and replaying an IP add/remove or a rename blindly could apply it twice or on top of a
 *   newer change. The caller gets the error (with `certainlyNotApplied === false`) and re-reads the
 *   service to learn what happened.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import type { Logger } from '@slack/bolt';
import { USER_AGENT } from '../version.js';
import { CloudApiError } from '../core/service/api-error.js';
import { z } from 'zod';
import {
  ReplicaScalingUpdateSchema,
  ServiceRecordSchema,
  ServiceUpdateSchema,
  StateCommandSchema,
  TagFilterSchema,
  type ReplicaScalingUpdate,
  type ServiceRecord,
  type ServiceUpdate,
  type StateCommand,
} from '../core/service/schema.js';
import { parseActivities } from '../core/service/activity.js';
import {
  SendWindowClosedError,
  type ActivityList,
  type ActivityWindow,
  type ApiKeyList,
  type BackupsAnswer,
  type ReadOptions,
  type ServiceDirectory,
  type ServiceList,
  type ServiceUpdateResult,
  type UpdateOptions,
} from '../ports/service-directory.js';
import { parseBackups } from '../core/service/backup.js';
import { ApiKeySchema, parseApiKeys, type ApiKey } from '../core/access/api-key.js';
import { MemberSchema, parseMembers, parseRoles, type Member, type Role } from '../core/access/member.js';
import type { ApiKeyOperation, MemberOperation } from '../core/change/types.js';

/** PATCH …/members/{userId} and …/keys/{keyId} as the bot sends them (official OpenAPI, strict). */
const MemberPatchSchema = z.strictObject({ assignedRoleIds: z.array(z.string().min(1)) });
const KeyPatchSchema = z.strictObject({
  state: z.enum(['enabled', 'disabled']).optional(),
  expireAt: z.iso.datetime().nullable().optional(),
});
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { readLoad, type ServiceLoad } from '../core/service/load.js';
import { QueryEndpointSchema, type QueryEndpoint } from '../core/service/query-endpoint.js';
import { UpgradeWindowSchema, type UpgradeWindow } from '../core/service/upgrade-window.js';
import { ScalingScheduleSchema, type ScalingSchedule } from '../core/service/scaling-schedule.js';
import { isWriteOnly, partSpec, type PartName, type PartUpdates, type PartValues } from '../core/service/parts.js';
import {
  BackupConfigurationEnvelopeSchema,
  ErrorEnvelopeSchema,
  ListEnvelopeSchema,
  parseServiceList,
  ServiceEnvelopeSchema,
  UsageCostEnvelopeSchema,
} from './envelopes.js';
import { FairThrottle, ThrottleBusyError, type ThrottleOptions, type ThrottleTicket } from './throttle.js';
import { normaliseFilters } from '../core/schedule/types.js';
import { filterServices } from '../core/summary/tags.js';
import { ReadCache } from './read-cache.js';
import type { UsageCostAnswer, UsageCostSource } from '../ports/cost.js';
import { dayCount, MAX_DAYS_PER_CALL, type DayRange } from '../core/cost/period.js';
import { parseCostRows } from '../core/cost/schema.js';

export type { ServiceList, ServiceUpdateResult } from '../ports/service-directory.js';

export interface CloudClientOptions {
  baseUrl: string;
  keyId: string;
  keySecret: string;
  orgId: string;
  /** How long a list read is reused; 0 disables the cache (single flight stays on). */
  cacheSeconds?: number;
  /** Per-request timeout, from sending to the last byte of the body. */
  timeoutMs?: number;
  /** Retries of reads after a 5xx, timeout or connection error. */
  readRetries?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Total time a call may spend waiting out 429s before giving up. */
  rateLimitBudgetMs?: number;
  /** Added to the API's X-RateLimit-Reset before retrying. */
  rateLimitPaddingMs?: number;
  /** Client-side throttle matching the API's limit (fair, bounded: see throttle.ts); false turns it off. */
  throttle?: Omit<ThrottleOptions, 'now'> | false;
  connections?: number;
  logger?: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
  /** Told about every request on the wire (metrics). */
  observer?: CloudObserver;
  /**
   * Called whenever the cached list changes (a read stored, a write invalidating it): what was
   * derived from it elsewhere (the acknowledging thread's ready answers) must not outlive it.
   */
  onCacheChange?: () => void;
}

export interface CloudObserver {
  /**
   * One attempt: its method, HTTP status (undefined when none came back), duration, and what it
   * read: services, or usage costs (which a key may be refused on while it manages services).
   */
  request(method: string, status: number | undefined, seconds: number, reads?: 'services' | 'costs'): void;
}

interface RawResponse {
  status: number;
  json: unknown;
  /** The body as it came (the metrics endpoint answers text, not JSON). */
  text?: string;
}

type Method = 'GET' | 'PATCH' | 'PUT' | 'POST' | 'DELETE';

export class CloudClient implements ServiceDirectory, UsageCostSource {
  readonly orgId: string;
  /** Requests sent on the wire (after cache and single flight); for tests and benchmarks. */
  requestsSent = 0;

  private readonly pool: Pool;
  private readonly basePath: string;
  private readonly authorization: string;
  private readonly cache: ReadCache<ServiceList>;
  private readonly throttle: FairThrottle | undefined;
  private readonly options: Required<Omit<CloudClientOptions, 'logger' | 'throttle' | 'observer' | 'onCacheChange'>>;
  private readonly logger: CloudClientOptions['logger'];
  private readonly observer: CloudObserver | undefined;

  constructor(options: CloudClientOptions) {
    this.options = {
      cacheSeconds: 10,
      timeoutMs: 15_000,
      readRetries: 3,
      backoffBaseMs: 200,
      backoffMaxMs: 3_000,
      rateLimitBudgetMs: 30_000,
      rateLimitPaddingMs: 1_000,
      connections: 8,
      ...options,
    };
    const base = new URL(options.baseUrl);
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.pool = new Pool(base.origin, { connections: this.options.connections, pipelining: 1 });
    this.authorization = `Basic ${Buffer.from(`${options.keyId}:${options.keySecret}`).toString('base64')}`;
    this.orgId = options.orgId;
    this.cache = new ReadCache(this.options.cacheSeconds * 1000, Date.now, options.onCacheChange);
    const throttle = options.throttle ?? { limit: 10, windowMs: 10_000 };
    this.throttle = throttle ? new FairThrottle(throttle) : undefined;
    this.logger = options.logger;
    this.observer = options.observer;
  }

  /**
   * The organization's services, filtered by tags (`tag:KEY` or `tag:KEY=VALUE`, AND-ed). The
   * organization is read unfiltered, once per cache window and coalesced, and filtered here with
   * the API's meaning: any number of distinct filter lists cost one request and one cached list.
   */
  async listServices(filters: readonly string[] = [], options: ReadOptions = {}): Promise<ServiceList> {
    for (const filter of filters) {
      if (!TagFilterSchema.safeParse(filter).success) {
        throw new CloudApiError('invalid-request', `"${filter}" is not a tag filter: write tag:KEY or tag:KEY=VALUE`);
      }
    }
    const ticket: ThrottleTicket = {
      priority: options.priority ?? (options.fresh ? 'approval' : 'background'),
      person: options.person ?? 'bot',
    };
    // A read joining one still waiting for the budget (single flight) lends it its priority: a
    // command never waits behind the background read of the same list.
    if (!options.fresh && this.listWaiting) this.throttle?.promote(this.listWaiting, ticket);
    const load = async () => {
      this.listWaiting = ticket;
      try {
        return await this.fetchList(ticket);
      } finally {
        if (this.listWaiting === ticket) this.listWaiting = undefined;
      }
    };
    const all = await (options.fresh
      ? this.cache.refresh(WHOLE_ORGANIZATION, load)
      : this.cache.get(WHOLE_ORGANIZATION, load));
    const wanted = normaliseFilters(filters);
    return wanted.length === 0 ? all : this.filteredOnce(all, wanted);
  }

  /**
   * A cached list filtered once per distinct filter list: repeated commands get the same object,
   * so what is derived from it (the rendered list, commands/run.ts) is computed once too.
   */
  private filteredOnce(all: ServiceList, wanted: readonly string[]): ServiceList {
    let byFilters = this.filtered.get(all);
    if (!byFilters) this.filtered.set(all, (byFilters = new Map<string, ServiceList>()));
    const key = wanted.join(' ');
    let list = byFilters.get(key);
    if (!list) byFilters.set(key, (list = { ...all, services: filterServices(all.services, wanted) }));
    return list;
  }

  /** The ticket of the list read under way (waiting for the budget or sent), if any. */
  private listWaiting: ThrottleTicket | undefined;

  /** Filtered lists by the cached list they came from (forgotten with it). */
  private readonly filtered = new WeakMap<ServiceList, Map<string, ServiceList>>();

  /**
   * One service by id, or undefined when the organization has no such service. A fresh read is the
   * API's GET /v1/organizations/{org}/services/{id}: one request of the rate limit like a list, but
   * one record instead of the whole organization, and never from the cache (the re-read before
   * applying a change). Otherwise it is served from the cached, single-flight list.
   */
  async getService(serviceId: string, options: ReadOptions = {}): Promise<ServiceRecord | undefined> {
    if (!options.fresh) {
      const list = await this.listServices([], options);
      return list.services.find((service) => service.id === serviceId);
    }
    const path = this.servicePath(serviceId);
    const ticket: ThrottleTicket = { priority: options.priority ?? 'approval', person: options.person ?? 'bot' };
    try {
      const response = await this.send('GET', path, ticket);
      const parsed = ServiceEnvelopeSchema.safeParse(response.json);
      if (!parsed.success) throw this.badResponse('GET', path, response.json);
      return parsed.data.result;
    } catch (error) {
      if (error instanceof CloudApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  /**
   * GET …/usageCost for one range of at most 31 UTC days, both ends included (the API's limit:
   * longer ranges are the caller's to split). Never cached here: the cost ledger keeps days.
   */
  async usageCost(
    range: DayRange,
    filters: readonly string[] = [],
    options: ReadOptions = {},
  ): Promise<UsageCostAnswer> {
    const days = dayCount(range);
    if (days < 1 || days > MAX_DAYS_PER_CALL) {
      throw new CloudApiError('invalid-request', `A usage cost read spans 1 to ${MAX_DAYS_PER_CALL} days, not ${days}`);
    }
    for (const filter of filters) {
      if (!TagFilterSchema.safeParse(filter).success) {
        throw new CloudApiError('invalid-request', `"${filter}" is not a tag filter: write tag:KEY or tag:KEY=VALUE`);
      }
    }
    const query = new URLSearchParams({ from_date: range.from, to_date: range.to });
    for (const filter of filters) query.append('filter', filter);
    const path = `${this.orgPath()}/usageCost?${query.toString()}`;
    const ticket: ThrottleTicket = { priority: options.priority ?? 'background', person: options.person ?? 'bot' };
    const response = await this.send('GET', path, ticket);
    const parsed = UsageCostEnvelopeSchema.safeParse(response.json);
    if (!parsed.success) throw this.badResponse('GET', path, response.json);
    const { rows, skipped } = parseCostRows(parsed.data.result.costs);
    if (skipped > 0) this.logger?.warn(`Cloud API usageCost: left out ${skipped} row(s) it could not read`);
    return { rows, requestId: parsed.data.requestId };
  }

  /**
   * See UpdateOptions for `beforeSend`, the approval flow's last ownership check. Each PATCH
   * method is async, so that any failure, a bad id included, arrives as a rejection.
   */
  async updateService(
    serviceId: string,
    update: ServiceUpdate,
    options: UpdateOptions = {},
  ): Promise<ServiceUpdateResult> {
    return this.patch(this.servicePath(serviceId), ServiceUpdateSchema, update, options);
  }

  /** PATCH …/replicaScaling; same guarantees as updateService. */
  async scaleReplicas(
    serviceId: string,
    body: ReplicaScalingUpdate,
    options: UpdateOptions = {},
  ): Promise<ServiceUpdateResult> {
    return this.patch(`${this.servicePath(serviceId)}/replicaScaling`, ReplicaScalingUpdateSchema, body, options);
  }

  /** PATCH …/state with `{ command }`; same guarantees as updateService. */
  async changeState(
    serviceId: string,
    command: StateCommand,
    options: UpdateOptions = {},
  ): Promise<ServiceUpdateResult> {
    return this.patch(`${this.servicePath(serviceId)}/state`, StateCommandBodySchema, { command }, options);
  }

  /**
   * Every PATCH: the body is checked strictly before anything is sent (a refusal is an
   * 'invalid-request' CloudApiError, certainly not applied), then sent with the approval ticket
   * and `beforeSend` fencing, never retried but after a 429, and answered with the record after it.
   */
  private async patch<T>(
    path: string,
    schema: z.ZodType<T>,
    input: unknown,
    options: UpdateOptions,
  ): Promise<ServiceUpdateResult> {
    const { result, requestId } = await this.write('PATCH', path, schema, input, options, ServiceRecordSchema);
    return { service: result, requestId };
  }

  /** A write whose answer's `result` is parsed by `answer` (the record, or a part of it). */
  private async write<T, A>(
    method: Exclude<Method, 'GET'>,
    path: string,
    schema: z.ZodType<T>,
    input: unknown,
    options: UpdateOptions,
    answer: z.ZodType<A>,
  ): Promise<{ result: A; requestId: string }> {
    const body = schema.safeParse(input);
    if (!body.success) {
      const problems = body.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
      throw new CloudApiError('invalid-request', `The change breaks the API's rules: ${problems}`);
    }
    try {
      const ticket: ThrottleTicket = { priority: 'approval', person: 'approval' };
      const response = await this.send(method, path, ticket, body.data, options.beforeSend);
      const parsed = z.looseObject({ requestId: z.string().catch(''), result: answer }).safeParse(response.json);
      if (!parsed.success) throw this.badResponse(method, path, response.json);
      return { result: parsed.data.result, requestId: parsed.data.requestId };
    } finally {
      // Whatever happened, the organization may have changed: the next read must be fresh.
      this.cache.invalidate();
    }
  }

  /**
   * GET …/activities for the window (both ends as ISO date-times). Never cached: each summary asks
   * for its own window, and only when it has drift to attribute. Entries are parsed leniently.
   */
  async listActivities(window: ActivityWindow, options: ReadOptions = {}): Promise<ActivityList> {
    const query = new URLSearchParams({
      from_date: new Date(window.from).toISOString(),
      to_date: new Date(window.to).toISOString(),
    });
    const path = `${this.orgPath()}/activities?${query.toString()}`;
    const ticket: ThrottleTicket = { priority: options.priority ?? 'background', person: options.person ?? 'bot' };
    const response = await this.send('GET', path, ticket);
    const parsed = ListEnvelopeSchema.safeParse(response.json);
    if (!parsed.success) throw this.badResponse('GET', path, response.json);
    const { activities, skipped } = parseActivities(parsed.data.result);
    if (skipped > 0) this.logger?.warn(`Cloud API activities: left out ${skipped} entries that were not objects`);
    return { activities, skipped, ownKeyId: this.options.keyId, requestId: parsed.data.requestId };
  }

  /**
   * GET …/backups and …/backupConfiguration of one service, both for the same person and lane.
   * Never cached: people ask for backups when something went wrong, and want them as they are.
   * A configuration the key may not read (401/403) leaves it out rather than fail the backups.
   */
  async readBackups(serviceId: string, options: ReadOptions = {}): Promise<BackupsAnswer> {
    const ticket: ThrottleTicket = { priority: options.priority ?? 'background', person: options.person ?? 'bot' };
    const backupsPath = `${this.servicePath(serviceId)}/backups`;
    const configurationPath = `${this.servicePath(serviceId)}/backupConfiguration`;
    const [listed, configuration] = await Promise.all([
      this.send('GET', backupsPath, ticket),
      this.send('GET', configurationPath, ticket).then(
        (response) => BackupConfigurationEnvelopeSchema.safeParse(response.json).data?.result,
        (error: unknown) => {
          if (error instanceof CloudApiError && (error.status === 401 || error.status === 403)) return undefined;
          throw error;
        },
      ),
    ]);
    const parsed = ListEnvelopeSchema.safeParse(listed.json);
    if (!parsed.success) throw this.badResponse('GET', backupsPath, listed.json);
    const { backups, skipped } = parseBackups(parsed.data.result);
    if (skipped > 0) this.logger?.warn(`Cloud API backups: left out ${skipped} backup(s) it could not read`);
    return configuration === undefined ? { backups, skipped } : { backups, configuration, skipped };
  }

  /** GET …/prometheus?filtered_metrics=true of one service: its live load. Never cached. */
  async readLoad(serviceId: string, options: ReadOptions = {}): Promise<ServiceLoad> {
    const path = `${this.servicePath(serviceId)}/prometheus?filtered_metrics=true`;
    const ticket: ThrottleTicket = { priority: options.priority ?? 'background', person: options.person ?? 'bot' };
    const response = await this.send('GET', path, ticket);
    return readLoad(parsePrometheusTextFormat(response.text ?? ''));
  }

  /** GET …/serviceQueryEndpoint: undefined when the service has none (the API's 404). Never cached. */
  readQueryEndpoint(serviceId: string, options: ReadOptions = {}): Promise<QueryEndpoint | undefined> {
    return this.readSetting(serviceId, 'serviceQueryEndpoint', QueryEndpointSchema, options);
  }

  /** GET …/upgradeWindow: undefined when none is set (the API's 404). Never cached. */
  readUpgradeWindow(serviceId: string, options: ReadOptions = {}): Promise<UpgradeWindow | undefined> {
    return this.readSetting(serviceId, 'upgradeWindow', UpgradeWindowSchema, options);
  }

  /** GET …/scalingSchedule: undefined when none (404); a 403 (no such feature) is thrown. Never cached. */
  readScalingSchedule(serviceId: string, options: ReadOptions = {}): Promise<ScalingSchedule | undefined> {
    return this.readSetting(serviceId, 'scalingSchedule', ScalingScheduleSchema, options);
  }

  /** GET …/services/{id}/PART, never cached: a change to it is judged on it as it is. */
  async readPart<P extends PartName>(
    serviceId: string,
    part: P,
    options: ReadOptions = {},
  ): Promise<PartValues[P] | null> {
    const spec = partSpec(part);
    // Write-only (the password): there is nothing to read.
    if (isWriteOnly(part)) return null;
    return withForbidden(
      spec,
      async () => (await this.readSetting(serviceId, spec.path, spec.schema, options)) ?? null,
    );
  }

  /** Writes …/services/{id}/PART with its spec's method, DELETE for null; same guarantees as updateService. */
  async writePart<P extends PartName>(
    serviceId: string,
    part: P,
    body: PartUpdates[P] | null,
    options: UpdateOptions = {},
  ): Promise<{ value: PartValues[P] | null; requestId: string }> {
    const spec = partSpec(part);
    const path = `${this.servicePath(serviceId)}/${spec.path}`;
    if (spec.method === undefined) throw new CloudApiError('invalid-request', `The ${spec.label} are only read.`);
    if (body === null) {
      if (!spec.removable) throw new CloudApiError('invalid-request', `The ${spec.label} cannot be removed.`);
      return withForbidden(spec, async () => {
        const { requestId } = await this.write('DELETE', path, z.undefined(), undefined, options, z.unknown());
        return { value: null, requestId };
      });
    }
    return withForbidden(spec, async () => {
      const { result, requestId } = await this.write(spec.method, path, spec.update, body, options, spec.schema);
      return { value: result, requestId };
    });
  }

  /** A setting of one service the API keeps apart (GET …/services/{id}/NAME); undefined on its 404. */
  private async readSetting<T>(
    serviceId: string,
    name: string,
    schema: z.ZodType<T>,
    options: ReadOptions,
  ): Promise<T | undefined> {
    const path = `${this.servicePath(serviceId)}/${name}`;
    const ticket: ThrottleTicket = { priority: options.priority ?? 'background', person: options.person ?? 'bot' };
    try {
      const response = await this.send('GET', path, ticket);
      const parsed = z.looseObject({ result: schema }).safeParse(response.json);
      if (!parsed.success) throw this.badResponse('GET', path, response.json);
      return parsed.data.result;
    } catch (error) {
      if (error instanceof CloudApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  /** DELETE …/services/{id}; same guarantees as updateService. */
  async deleteService(serviceId: string, options: UpdateOptions = {}): Promise<{ requestId: string }> {
    const path = this.servicePath(serviceId);
    const { requestId } = await this.write('DELETE', path, z.undefined(), undefined, options, z.unknown());
    return { requestId };
  }

  /** PATCH …/members/{userId}; same guarantees as updateService. */
  async updateMember(
    userId: string,
    body: MemberOperation['body'],
    options: UpdateOptions = {},
  ): Promise<{ member: Member; requestId: string }> {
    const path = `${this.orgPath()}/members/${encodeURIComponent(userId)}`;
    const { result, requestId } = await this.write('PATCH', path, MemberPatchSchema, body, options, MemberSchema);
    return { member: result, requestId };
  }

  /** PATCH …/keys/{keyId}; same guarantees as updateService. */
  async updateKey(
    keyId: string,
    body: ApiKeyOperation['body'],
    options: UpdateOptions = {},
  ): Promise<{ key: ApiKey; requestId: string }> {
    const path = `${this.orgPath()}/keys/${encodeURIComponent(keyId)}`;
    const { result, requestId } = await this.write('PATCH', path, KeyPatchSchema, body, options, ApiKeySchema);
    return { key: result, requestId };
  }

  /** GET …/members: never cached (people ask who has access now). */
  async listMembers(options: ReadOptions = {}): Promise<Member[]> {
    return parseMembers(await this.listOf('members', options)).items;
  }

  /** GET …/roles. */
  async listRoles(options: ReadOptions = {}): Promise<Role[]> {
    return parseRoles(await this.listOf('roles', options)).items;
  }

  /** The `result` list of an organization-level GET (members, roles, keys). */
  private async listOf(what: string, options: ReadOptions): Promise<unknown[]> {
    const path = `${this.orgPath()}/${what}`;
    const ticket: ThrottleTicket = { priority: options.priority ?? 'background', person: options.person ?? 'bot' };
    const response = await this.send('GET', path, ticket);
    const parsed = ListEnvelopeSchema.safeParse(response.json);
    if (!parsed.success) throw this.badResponse('GET', path, response.json);
    return parsed.data.result;
  }

  /** GET …/keys: never cached (someone asks because a key may have leaked). */
  listApiKeys(options: ReadOptions = {}): Promise<ApiKeyList> {
    // A read under way is joined (single flight): summaries firing together cost one request.
    if (this.keysInFlight !== undefined) return this.keysInFlight;
    const read = this.listOf('keys', options).then((items) => ({
      ...parseApiKeys(items),
      ownKeyId: this.options.keyId,
    }));
    this.keysInFlight = read;
    const done = () => {
      if (this.keysInFlight === read) this.keysInFlight = undefined;
    };
    read.then(done, done);
    return read;
  }

  private keysInFlight: Promise<ApiKeyList> | undefined;

  /** The key this client authenticates with (CLICKHOUSE_KEY_ID), without a request. */
  ownKeyId(): string {
    return this.options.keyId;
  }

  /** Requests waiting for the client-side throttle right now. */
  get throttleQueueLength(): number {
    return this.throttle?.waiting ?? 0;
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  private orgPath(): string {
    return `${this.basePath}/v1/organizations/${encodeURIComponent(this.orgId)}`;
  }

  private servicePath(serviceId: string): string {
    return `${this.orgPath()}/services/${encodeURIComponent(serviceId)}`;
  }

  private async fetchList(ticket: ThrottleTicket): Promise<ServiceList> {
    const path = `${this.orgPath()}/services`;
    const response = await this.send('GET', path, ticket);
    const parsed = ListEnvelopeSchema.safeParse(response.json);
    if (!parsed.success) throw this.badResponse('GET', path, response.json);
    const { services, skipped } = parseServiceList(parsed.data.result);
    if (skipped > 0) this.logger?.warn(`Cloud API list: left out ${skipped} record(s) without an id`);
    const fetchedAt = Date.now();
    const cacheMs = this.options.cacheSeconds * 1000;
    return { services, skipped, requestId: parsed.data.requestId, fetchedAt, cachedUntil: fetchedAt + cacheMs };
  }

  private async send(
    method: Method,
    path: string,
    ticket: ThrottleTicket,
    body?: unknown,
    beforeSend?: UpdateOptions['beforeSend'],
  ): Promise<RawResponse> {
    const deadline = Date.now() + this.options.rateLimitBudgetMs;
    for (let attempt = 0; ; attempt += 1) {
      await this.acquire(ticket, method, path);
      const sendBy = beforeSend ? await beforeSend() : undefined;
      let response: RawResponse & { retryAfterMs: number | undefined };
      try {
        response = await this.sendOnce(method, path, body, sendBy);
      } catch (error) {
        if (error instanceof SendWindowClosedError) throw error;
        const transport = this.transportError(error, method, path);
        if (method === 'GET' && attempt < this.options.readRetries) {
          this.logger?.warn(`${transport.message}; retrying (${attempt + 1}/${this.options.readRetries})`);
          await sleep(this.backoff(attempt));
          continue;
        }
        throw transport;
      }
      const { status } = response;
      if (status === 429) {
        const wait = (response.retryAfterMs ?? 1_000) + this.options.rateLimitPaddingMs;
        if (Date.now() + wait > deadline) throw this.rateLimited(method, path, response.json);
        this.logger?.info(
          `Cloud API rate limit reached; waiting ${Math.ceil(wait / 100) / 10}s before ${method} ${path}`,
        );
        await sleep(wait);
        attempt -= 1; // a rate-limit wait is not a failed attempt
        continue;
      }
      if (status >= 500 && method === 'GET' && attempt < this.options.readRetries) {
        this.logger?.warn(
          `Cloud API ${method} ${path} answered ${status}; retrying (${attempt + 1}/${this.options.readRetries})`,
        );
        await sleep(this.backoff(attempt));
        continue;
      }
      if (status >= 400 || status < 200) throw this.httpError(method, path, response);
      return response;
    }
  }

  private async acquire(ticket: ThrottleTicket, method: Method, path: string): Promise<void> {
    try {
      await this.throttle?.acquire(ticket);
    } catch (error) {
      if (!(error instanceof ThrottleBusyError)) throw error;
      this.logger?.info(`Cloud API budget busy: ${method} ${path} for ${ticket.person} not sent`);
      throw new CloudApiError('busy', 'The Cloud API budget of the bot is taken by other requests', {
        method,
        path,
        retryAfterMs: error.retryAfterMs,
      });
    }
  }

  private async sendOnce(method: Method, path: string, body?: unknown, sendBy?: number) {
    // Synchronous from here up to pool.request: nothing can run between this check and the dispatch.
    if (sendBy !== undefined && Date.now() > sendBy) throw new SendWindowClosedError();
    const started = performance.now();
    let status: number | undefined;
    try {
      const response = await this.sendOnWire(method, path, body);
      status = response.status;
      return response;
    } finally {
      const reads = path.includes('/usageCost?') ? 'costs' : 'services';
      this.observer?.request(method, status, (performance.now() - started) / 1000, reads);
    }
  }

  private async sendOnWire(method: Method, path: string, body?: unknown) {
    this.requestsSent += 1;
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    const response = await this.pool.request({
      method,
      path,
      signal,
      headers: {
        authorization: this.authorization,
        'user-agent': USER_AGENT,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.body.text();
    return {
      status: response.statusCode,
      json: parseJson(text),
      text,
      retryAfterMs: retryAfterMs(response.headers),
    };
  }

  private backoff(attempt: number): number {
    const ceiling = Math.min(this.options.backoffMaxMs, this.options.backoffBaseMs * 2 ** attempt);
    return Math.random() * ceiling; // full jitter: replicas retrying together spread out
  }

  /**
   * API messages are shown to people and kept in the audit trail; one that quoted our credentials
   * (a misbehaving gateway, say) must not carry them there.
   */
  private scrub(text: string | undefined): string | undefined {
    if (text === undefined) return undefined;
    const encoded = this.authorization.slice('Basic '.length);
    return text.split(this.options.keySecret).join('[redacted]').split(encoded).join('[redacted]');
  }

  private httpError(method: Method, path: string, response: RawResponse): CloudApiError {
    const envelope = ErrorEnvelopeSchema.safeParse(response.json);
    const apiMessage = this.scrub(envelope.success ? envelope.data.error : undefined);
    const requestId = envelope.success ? envelope.data.requestId : undefined;
    return new CloudApiError(
      'http',
      `ClickHouse Cloud API answered ${response.status}${apiMessage ? `: ${apiMessage}` : ''}`,
      { status: response.status, apiMessage, requestId, method, path },
    );
  }

  private rateLimited(method: Method, path: string, json: unknown): CloudApiError {
    const envelope = ErrorEnvelopeSchema.safeParse(json);
    return new CloudApiError(
      'rate-limited',
      'ClickHouse Cloud API rate limit (10 requests per 10 s) is still exhausted',
      {
        status: 429,
        apiMessage: this.scrub(envelope.success ? envelope.data.error : undefined),
        requestId: envelope.success ? envelope.data.requestId : undefined,
        method,
        path,
      },
    );
  }

  private badResponse(method: Method, path: string, json: unknown): CloudApiError {
    const envelope = ErrorEnvelopeSchema.safeParse(json);
    return new CloudApiError('bad-response', 'ClickHouse Cloud API sent an answer the bot could not read', {
      status: 200,
      requestId: envelope.success ? envelope.data.requestId : undefined,
      method,
      path,
    });
  }

  private transportError(error: unknown, method: Method, path: string): CloudApiError {
    const name = error instanceof Error ? error.name : '';
    const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
    const timedOut = name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
    if (timedOut) {
      return new CloudApiError(
        'timeout',
        `ClickHouse Cloud API did not answer within ${this.options.timeoutMs / 1000}s`,
        {
          method,
          path,
        },
      );
    }
    return new CloudApiError(
      'network',
      `Could not reach the ClickHouse Cloud API (${code || name || 'connection error'})`,
      {
        method,
        path,
      },
    );
  }
}

/** The body of PATCH …/state. */
const StateCommandBodySchema = z.strictObject({ command: StateCommandSchema });

/** The one cache key: the whole organization, filtered locally per caller. */
const WHOLE_ORGANIZATION = 'organization';

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** X-RateLimit-Reset is a float number of seconds; Retry-After is seconds or an HTTP date. */
function retryAfterMs(headers: Record<string, string | string[] | undefined>): number | undefined {
  const first = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const reset = Number.parseFloat(first('x-ratelimit-reset') ?? '');
  if (Number.isFinite(reset) && reset >= 0) return reset * 1000;
  const retryAfter = first('retry-after');
  if (retryAfter === undefined) return undefined;
  const seconds = Number.parseFloat(retryAfter);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** A 403 on a part whose spec says what it means (a feature the organization lacks) carries that sentence. */
async function withForbidden<T>(spec: { forbidden?: string }, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof CloudApiError) || error.status !== 403 || spec.forbidden === undefined) throw error;
    throw new CloudApiError(error.kind, error.message, { ...error.details, sentence: spec.forbidden });
  }
}
