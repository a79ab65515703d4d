/**
 * A local stand-in for the ClickHouse Cloud API operations the bot drives (list services, read one,
 * update one, scale one through …/replicaScaling, start/stop/wake one through …/state, read the
 * organization's activities, read its daily costs), over real HTTP (node:http), with the real API's envelopes, Basic
 * auth, tag filters and PATCH rules, timed state transitions, plus fault switches so tests can
 * make it slow, failing, rate-limited, rude (dropped sockets) or silent. It also serves endpoints
 * the bot does not drive yet (backups, scaling schedules, upgrade windows, Prometheus, password,
 * query endpoint, members, roles and keys); their rules live in modules of their own, the routes
 * here stay thin.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import {
  AccessDirectory,
  keyDeletionRefusal,
  keyUsable,
  keyView,
  memberDeletionRefusal,
  memberView,
  roleView,
  usedAtOf,
  type AccessSeed,
  type KeyRecord,
  type MemberRecord,
} from './access.js';
import { usageCost } from './cost.js';
import {
  backupsOf,
  DEFAULT_BACKUP_CONFIGURATION,
  patchBackupConfiguration,
  type BackupConfiguration,
  type BackupRecord,
} from './backups.js';
import { createService, deletionRefusal } from './create.js';
import { defaultLoad, parseFilteredMetrics, prometheusText, type ServiceLoad } from './prometheus.js';
import { activeEntry, parseSchedule, scheduledScaling, scheduleView, type ScheduleEntry } from './schedules.js';
import { upsertQueryEndpoint, type QueryEndpoint } from './query-endpoint.js';
import { DEMO_BACKUP_CONFIGURATIONS, DEMO_QUERY_ENDPOINTS, demoAccess, demoWindowsAndSchedules } from './seed.js';
import { changePassword, type PasswordChange } from './service-password.js';
import { parseUpgradeWindow, secondaryRefusal, windowOwner, type UpgradeWindow } from './upgrade-window.js';
import {
  changedActivityTypes,
  changeServiceState,
  consoleUser,
  filterServices,
  OrganizationState,
  scaleService,
  serviceNotFound,
  updateService,
  type Actor,
  type Outcome,
  type ServiceRecordLike,
} from './state.js';

export type SimulatedMethod = 'GET' | 'PATCH' | 'POST' | 'PUT' | 'DELETE';

export interface SimulatorOptions {
  keyId: string;
  keySecret: string;
  orgId: string;
  services?: ServiceRecordLike[];
  /** 127.0.0.1 unless given. */
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Clock of the rate limiter, the request log, state transitions and activities; tests pass a fake one. */
  now?: () => number;
  /**
   * How long `stopping`, `starting` and `awaking` last before the service settles (ms); 0 settles
   * at once. DEFAULT_TRANSITION_MS unless given.
   */
  transitionMs?: number;
  /** Backup configurations by service id (the demo's unless given); the default (daily, kept a day) for the others. */
  backupConfigurations?: Record<string, BackupConfiguration>;
  /** Roles, members and API keys (the demo's, dated from the start, unless given). */
  access?: AccessSeed;
}

/** Who changeInConsole says made a change when the caller does not name anyone. */
export const CONSOLE_EMAIL = 'console.user@example.com';

/** A stop or start takes a few seconds in the demo: long enough to watch, short enough to wait for. */
export const DEFAULT_TRANSITION_MS = 5_000;

/** An RFC 3339 date-time with an offset, the form the API's `format: date-time` takes. */
const DATE_TIME = z.iso.datetime({ offset: true });

/** One request as received. The Authorization header is deliberately not kept. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The parsed JSON body, the raw text if it is not JSON, or undefined if there was none. */
  body?: unknown;
  at: number;
}

// ---------------------------------------------------------------------------------------------
// Replies and envelopes

interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Sent as text/plain instead of the JSON body (the Prometheus endpoint's answer). */
  text?: string;
}

const ERROR_CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_ERROR',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
};

function errorCode(status: number): string {
  const known = ERROR_CODES[status];
  if (known !== undefined) return known;
  return (STATUS_CODES[status] ?? 'ERROR').toUpperCase().replace(/[^A-Z0-9]+/g, '_');
}

function success(result: unknown): Reply {
  return { status: 200, body: { status: 200, requestId: randomUUID(), result } };
}

/** A success without a result, as the document's DELETEs answer. */
function emptySuccess(): Reply {
  return { status: 200, body: { status: 200, requestId: randomUUID() } };
}

/** The real API's error envelope: `{status, error: "CODE: message", requestId}`. */
const memberNotFound = (userId: string) => `member ${userId} not found`;
const keyNotFound = (keyId: string) => `API key ${keyId} not found`;

function failure(status: number, message: string, headers?: Record<string, string>): Reply {
  const error = `${errorCode(status)}: ${message}`;
  return { status, body: { status, error, requestId: randomUUID() }, headers };
}

/** The real 429 body carries the bare code; clients wait for X-RateLimit-Reset (float seconds). */
function rateLimited(resetSeconds: number, retryAfterSeconds?: number): Reply {
  const headers: Record<string, string> = { 'x-ratelimit-reset': resetSeconds.toFixed(3) };
  if (retryAfterSeconds !== undefined) headers['retry-after'] = String(Math.ceil(retryAfterSeconds));
  return { status: 429, body: { status: 429, error: 'TOO_MANY_REQUESTS', requestId: randomUUID() }, headers };
}

/** Prometheus' text exposition format, version 0.0.4. */
const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

function send(res: ServerResponse, reply: Reply): void {
  const payload = reply.text ?? JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    'content-type': reply.text === undefined ? 'application/json' : PROMETHEUS_CONTENT_TYPE,
    'content-length': Buffer.byteLength(payload),
    ...reply.headers,
  });
  res.end(payload);
}

// ---------------------------------------------------------------------------------------------
// Fault switches

export interface FaultOptions {
  /** Only requests with this method trigger (and use up) the fault; any method if absent. */
  on?: SimulatedMethod;
  /**
   * Process the request first (a PATCH takes effect), then misbehave: the "did my change go
   * through?" case a client sees when a response is lost. Before processing if absent.
   */
  afterApply?: boolean;
}

export interface RateLimitFaultOptions {
  on?: SimulatedMethod;
  /** Also send a Retry-After header (whole seconds); the real API sends only X-RateLimit-Reset. */
  retryAfterSeconds?: number;
}

export interface RateLimitPolicy {
  limit: number;
  windowMs: number;
}

type FaultAction =
  | { kind: 'fail'; status: number }
  | { kind: 'rateLimit'; resetSeconds: number; retryAfterSeconds?: number }
  | { kind: 'drop' }
  | { kind: 'hang' };

interface ArmedFault {
  action: FaultAction;
  remaining: number;
  on?: SimulatedMethod;
  afterApply: boolean;
}

function assertCount(count: number): void {
  if (!Number.isInteger(count) || count < 1)
    throw new RangeError(`fault count must be a positive integer, got ${count}`);
}

/**
 * Armed faults form one queue: each request suffers the first armed fault that matches its
 * method, so `failNext(1); dropNext(1)` fails the next request and drops the one after.
 */
export class FaultSwitches {
  /** Delay before every response (faulty ones included). */
  latencyMs = 0;
  /** A real per-key sliding-window limiter; off unless set (the real API allows 10 per 10 s). */
  enforceRateLimit: RateLimitPolicy | undefined = undefined;
  private armed: ArmedFault[] = [];

  /** The next `count` matching requests get `status` with an error envelope. */
  failNext(count: number, status = 500, options: FaultOptions = {}): void {
    if (!Number.isInteger(status) || status < 400 || status > 599)
      throw new RangeError(`not an error status: ${status}`);
    this.arm({ kind: 'fail', status }, count, options);
  }

  /** The next `count` matching requests get 429 with `X-RateLimit-Reset: resetSeconds`. */
  rateLimitNext(count: number, resetSeconds = 1, options: RateLimitFaultOptions = {}): void {
    const { on, retryAfterSeconds } = options;
    this.arm({ kind: 'rateLimit', resetSeconds, retryAfterSeconds }, count, { on });
  }

  /** The next `count` matching requests have their socket destroyed without an answer. */
  dropNext(count: number, options: FaultOptions = {}): void {
    this.arm({ kind: 'drop' }, count, options);
  }

  /** The next `count` matching requests are never answered (their sockets close with the simulator). */
  hangNext(count: number, options: FaultOptions = {}): void {
    this.arm({ kind: 'hang' }, count, options);
  }

  /** Armed faults not yet used up. */
  get pending(): number {
    return this.armed.reduce((sum, fault) => sum + fault.remaining, 0);
  }

  /** Disarms everything: no latency, no limiter, no queued faults. */
  reset(): void {
    this.latencyMs = 0;
    this.enforceRateLimit = undefined;
    this.armed = [];
  }

  /** For the server: uses up one occurrence of the first fault armed for this method, if any. */
  take(method: string): Readonly<ArmedFault> | undefined {
    const fault = this.armed.find((candidate) => candidate.on === undefined || candidate.on === method);
    if (fault === undefined) return undefined;
    fault.remaining -= 1;
    if (fault.remaining === 0) this.armed = this.armed.filter((candidate) => candidate !== fault);
    return fault;
  }

  private arm(action: FaultAction, count: number, options: FaultOptions): void {
    assertCount(count);
    this.armed.push({ action, remaining: count, on: options.on, afterApply: options.afterApply ?? false });
  }
}

/** Remembers the admitted requests of each key within the window; refused ones do not count. */
class SlidingWindowLimiter {
  private readonly hits = new Map<string, number[]>();

  /** Undefined if admitted, else the seconds until the oldest hit in the window expires. */
  admit(key: string, policy: RateLimitPolicy, now: number): number | undefined {
    const recent = (this.hits.get(key) ?? []).filter((at) => at > now - policy.windowMs);
    this.hits.set(key, recent);
    if (recent.length < policy.limit) {
      recent.push(now);
      return undefined;
    }
    const oldest = recent[recent.length - policy.limit] ?? now;
    return (oldest + policy.windowMs - now) / 1000;
  }
}

// ---------------------------------------------------------------------------------------------
// Requests, routes and credentials

interface Incoming {
  method: string;
  url: URL;
  rawBody: string;
  authorization: string | undefined;
}

async function readIncoming(req: IncomingMessage): Promise<Incoming> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return {
    method: req.method ?? 'GET',
    // Prefixing (rather than resolving against a base) keeps a path like "//x" a path.
    url: new URL(`http://simulator.invalid${req.url ?? '/'}`),
    rawBody: Buffer.concat(chunks).toString('utf8'),
    authorization: req.headers.authorization,
  };
}

type JsonParse = { ok: true; value: unknown } | { ok: false };

function parseJson(text: string): JsonParse {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function bodyForLog(rawBody: string): unknown {
  if (rawBody === '') return undefined;
  const parsed = parseJson(rawBody);
  return parsed.ok ? parsed.value : rawBody;
}

/** Actions under …/services/{serviceId} that take no further segment. */
const SERVICE_ACTIONS = [
  'replicaScaling',
  'state',
  'backups',
  'backupConfiguration',
  'prometheus',
  'scalingSchedule',
  'upgradeWindow',
  'password',
  'serviceQueryEndpoint',
] as const;
type ServiceAction = (typeof SERVICE_ACTIONS)[number];

type Route =
  | { kind: 'list'; orgId: string }
  | { kind: 'activities'; orgId: string }
  | { kind: 'usageCost'; orgId: string }
  | { kind: 'service'; orgId: string; serviceId: string }
  | { kind: ServiceAction; orgId: string; serviceId: string }
  | { kind: 'backup'; orgId: string; serviceId: string; backupId: string }
  | { kind: 'members' | 'roles' | 'keys'; orgId: string }
  | { kind: 'member'; orgId: string; userId: string }
  | { kind: 'key'; orgId: string; keyId: string };

/** The methods each route answers. */
const METHODS_OF: Record<Route['kind'], readonly SimulatedMethod[]> = {
  list: ['GET', 'POST'],
  activities: ['GET'],
  usageCost: ['GET'],
  service: ['GET', 'PATCH', 'DELETE'],
  replicaScaling: ['PATCH'],
  state: ['PATCH'],
  backups: ['GET'],
  backup: ['GET'],
  backupConfiguration: ['GET', 'PATCH'],
  prometheus: ['GET'],
  scalingSchedule: ['GET', 'POST', 'DELETE'],
  upgradeWindow: ['GET', 'PUT', 'DELETE'],
  password: ['PATCH'],
  serviceQueryEndpoint: ['GET', 'POST', 'DELETE'],
  members: ['GET'],
  member: ['GET', 'PATCH', 'DELETE'],
  roles: ['GET'],
  keys: ['GET'],
  key: ['GET', 'PATCH', 'DELETE'],
};

function decodeSegment(segment: string | undefined): string | undefined {
  if (segment === undefined || segment === '') return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

const isServiceAction = (action: string): action is ServiceAction =>
  SERVICE_ACTIONS.some((candidate) => candidate === action);

/** …/services/{serviceId}[/{action}[/{item}]] once the organization is known. */
function matchServiceRoute(orgId: string, segments: readonly string[]): Route | undefined {
  const [rawServiceId, action, item, ...rest] = segments;
  if (rawServiceId === undefined) return { kind: 'list', orgId };
  const serviceId = decodeSegment(rawServiceId);
  if (serviceId === undefined || rest.length > 0) return undefined;
  if (action === undefined) return { kind: 'service', orgId, serviceId };
  if (item !== undefined) {
    const backupId = decodeSegment(item);
    return action === 'backups' && backupId ? { kind: 'backup', orgId, serviceId, backupId } : undefined;
  }
  return isServiceAction(action) ? { kind: action, orgId, serviceId } : undefined;
}

/**
 * /v1/organizations/{orgId}/services, /activities, /usageCost, /members[/{userId}], /roles and
 * /keys[/{keyId}];
 * /v1/organizations/{orgId}/services/{serviceId} and its actions (SERVICE_ACTIONS) and
 * /backups/{backupId}.
 */
function matchRoute(pathname: string): Route | undefined {
  const [root, version, organizations, rawOrgId, collection, ...segments] = pathname.split('/');
  const shapeOk = root === '' && version === 'v1' && organizations === 'organizations';
  const orgId = decodeSegment(rawOrgId);
  if (!shapeOk || orgId === undefined) return undefined;
  if (collection === 'services') return matchServiceRoute(orgId, segments);
  const [rawItem, ...rest] = segments;
  if (rest.length > 0) return undefined;
  const item = decodeSegment(rawItem);
  if (rawItem !== undefined) {
    if (item === undefined) return undefined;
    if (collection === 'members') return { kind: 'member', orgId, userId: item };
    return collection === 'keys' ? { kind: 'key', orgId, keyId: item } : undefined;
  }
  const plain = ['activities', 'usageCost', 'members', 'roles', 'keys'] as const;
  const kind = plain.find((candidate) => candidate === collection);
  return kind === undefined ? undefined : { kind, orgId };
}

/** The service endpoints the bot does not drive yet. */
interface ServiceSettingRoute {
  kind: 'prometheus' | 'scalingSchedule' | 'upgradeWindow' | 'password' | 'serviceQueryEndpoint';
  orgId: string;
  serviceId: string;
}
type AccessRoute = Extract<Route, { kind: 'members' | 'member' | 'roles' | 'keys' | 'key' }>;

interface Credentials {
  keyId: string;
  keySecret: string;
}

function credentialsFrom(header: string | undefined): Credentials | undefined {
  const encoded = /^Basic\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
  if (encoded === undefined) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return undefined;
  return { keyId: decoded.slice(0, colon), keySecret: decoded.slice(colon + 1) };
}

// ---------------------------------------------------------------------------------------------
// The simulator

interface SimulatorEvents {
  request: [RecordedRequest];
}

export class CloudSimulator extends EventEmitter<SimulatorEvents> {
  readonly faults = new FaultSwitches();
  readonly requests: RecordedRequest[] = [];
  /** The key's role may not read the activity log: GET …/activities answers 403, as the real API would. */
  activitiesForbidden = false;
  /** The key's role may not list API keys: GET …/keys answers 403. */
  keysForbidden = false;
  /** The organization is on the BASIC package: a backup configuration cannot be customised (403). */
  basicPackage = false;
  /** Each service's backup configuration, where it differs from the default. */
  private readonly backupConfigs = new Map<string, BackupConfiguration>();
  /**
   * The organization lacks the scheduled autoscaling feature: …/scalingSchedule answers 403 with a
   * sentence. Not documented: the exact status ("Requires the scheduled autoscaling feature to be
   * enabled for the organization" is all the document says); 403 is the one it uses for entitlements
   * elsewhere (upgradeWindow).
   */
  scalingSchedulesDisabled = false;
  /** The organization lacks the scheduled upgrades feature: PUT …/upgradeWindow answers 403 (the document). */
  scheduledUpgradesDisabled = false;
  /** The organization's roles, members and API keys; the simulator's own key among them. */
  private readonly access: AccessDirectory;
  /** Each service's query endpoint, where one is configured. */
  private readonly queryEndpoints = new Map<string, QueryEndpoint>();
  /** Each service's password as the last PATCH …/password set it (hashes only), by service id. */
  private readonly passwords = new Map<string, Omit<PasswordChange, 'generated'>>();
  /** Upgrade windows of primary services, by service id. */
  private readonly upgradeWindows = new Map<string, UpgradeWindow>();
  /** Each service's scaling schedule entries; a service without one has no entry here. */
  private readonly schedules = new Map<string, ScheduleEntry[]>();
  /** Loads tests set with setLoad, by service id; the others follow defaultLoad. */
  private readonly loads = new Map<string, ServiceLoad>();
  /** Services whose GET …/prometheus fails, with the status it answers (failLoad). */
  private readonly loadFailures = new Map<string, number>();
  /** When the simulator started: services stopped before it took their last backup 3 days before. */
  private readonly startedAt: number;
  private readonly credentials: Credentials;
  private readonly state: OrganizationState;
  private readonly limiter = new SlidingWindowLimiter();
  private readonly now: () => number;
  private readonly server: Server;
  /** Aborted by close(), so that responses waiting out a latency give up at once. */
  private readonly closing = new AbortController();
  private closed: Promise<void> | undefined;
  private address = '';

  static async start(options: SimulatorOptions): Promise<CloudSimulator> {
    const simulator = new CloudSimulator(options);
    await simulator.listen(options.host ?? '127.0.0.1', options.port ?? 0);
    return simulator;
  }

  private constructor(options: SimulatorOptions) {
    super();
    this.credentials = { keyId: options.keyId, keySecret: options.keySecret };
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
    this.access = new AccessDirectory(options.access ?? demoAccess(options.keyId, options.keySecret, this.startedAt));
    for (const [id, configuration] of Object.entries(options.backupConfigurations ?? DEMO_BACKUP_CONFIGURATIONS))
      this.backupConfigs.set(id, { ...configuration });
    this.seedWindowsAndSchedules();
    for (const [id, endpoint] of Object.entries(DEMO_QUERY_ENDPOINTS))
      this.queryEndpoints.set(id, { id: `qe-${id.slice(0, 8)}`, ...structuredClone(endpoint) });
    this.state = new OrganizationState(
      options.orgId,
      options.services ?? [],
      options.transitionMs ?? DEFAULT_TRANSITION_MS,
    );
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => this.onHandlerError(res, error));
    });
  }

  get orgId(): string {
    return this.state.orgId;
  }

  /** e.g. http://127.0.0.1:41234 */
  get url(): string {
    return this.address;
  }

  // --- state, as the console would see it ---------------------------------------------------

  /** Deep copies of every service, in list order. */
  services(): ServiceRecordLike[] {
    this.settle();
    return structuredClone([...this.state.list()]);
  }

  service(id: string): ServiceRecordLike | undefined {
    this.settle();
    const record = this.state.get(id);
    return record === undefined ? undefined : structuredClone(record);
  }

  /** Edits a service directly, as someone in the console would, bypassing the API and its rules. */
  changeOutsideBot(id: string, patch: Partial<ServiceRecordLike>): void {
    const current = this.state.get(id);
    if (current === undefined) throw new Error(`the simulator has no service ${id}`);
    if (patch.state !== undefined) this.state.cancelTransition(id);
    this.state.put({ ...current, ...structuredClone(patch), id });
  }

  /**
   * Edits a service as someone in the console does: like changeOutsideBot, and the activity log
   * records it under that person (a `user` actor whose actorDetails is the email), one activity per
   * kind of setting that changed, as GET …/activities will show it.
   */
  changeInConsole(id: string, patch: Partial<ServiceRecordLike>, by: Actor = consoleUser(CONSOLE_EMAIL)): void {
    this.settle();
    const before = this.service(id);
    this.changeOutsideBot(id, patch);
    const after = this.state.get(id);
    if (before === undefined || after === undefined) return;
    for (const type of changedActivityTypes(before, after)) this.recordActivity(id, type, by);
  }

  /** A service's backups as GET …/backups serves them, newest first. */
  backups(serviceId: string): BackupRecord[] {
    this.settle();
    const record = this.state.get(serviceId);
    if (record === undefined) return [];
    const created = typeof record['createdAt'] === 'string' ? Date.parse(record['createdAt']) : undefined;
    return backupsOf(serviceId, this.backupConfiguration(serviceId), this.now(), {
      ...(created !== undefined && !Number.isNaN(created) ? { createdAt: created } : {}),
      ...(record.state === 'stopped' ? { takenUntil: this.stoppedSince(serviceId) } : {}),
    });
  }

  backupConfiguration(serviceId: string): BackupConfiguration {
    return { ...(this.backupConfigs.get(serviceId) ?? DEFAULT_BACKUP_CONFIGURATION) };
  }

  /** Changes a backup configuration as the console would, bypassing the API. */
  changeBackupConfigurationInConsole(serviceId: string, configuration: BackupConfiguration): void {
    this.backupConfigs.set(serviceId, { ...configuration });
  }

  /** The organization's API keys as they are now (copies), in list order. */
  apiKeys(): KeyRecord[] {
    return structuredClone([...this.access.keys.values()]);
  }

  /** The organization's members as they are now (copies), in list order. */
  members(): MemberRecord[] {
    return structuredClone([...this.access.members.values()]);
  }

  /**
   * Changes a key as someone in the console does: a PATCH body of the API (`state`, `expireAt`,
   * `name`, `assignedRoleIds`, `ipAccessList`) under its rules, logged under that person, one
   * openapi_key_update per kind of change, as GET …/activities will show it. Throws the API's
   * sentence when it would refuse.
   */
  changeKeyInConsole(keyId: string, patch: unknown, by: Actor = consoleUser(CONSOLE_EMAIL)): void {
    const outcome = this.patchKeyAs(keyId, patch, by);
    if (!outcome.ok) throw new Error(outcome.message);
  }

  /** Replaces a member's roles as someone in the console does (logged under that person); throws a refusal. */
  changeMemberRolesInConsole(userId: string, roleIds: string[], by: Actor = consoleUser(CONSOLE_EMAIL)): void {
    const outcome = this.patchMemberAs(userId, { assignedRoleIds: roleIds }, by);
    if (!outcome.ok) throw new Error(outcome.message);
  }

  /** When the service stopped: its last stop in the activity log, else three days before the simulator started. */
  private stoppedSince(serviceId: string): number {
    const stops = this.state
      .activities()
      .filter((activity) => activity.serviceId === serviceId && activity.type === 'service_stop');
    const last = stops.at(-1);
    return last === undefined ? this.startedAt - 3 * 24 * 3_600_000 : Date.parse(last.createdAt);
  }

  /** Settles transitions under way, then puts each scheduled service's entry in force (or its base). */
  /** The demo's upgrade windows and scaling schedules (seed.ts). */
  private seedWindowsAndSchedules(): void {
    const demo = demoWindowsAndSchedules();
    for (const [id, window] of demo.windows) this.upgradeWindows.set(id, window);
    for (const [id, entries] of demo.schedules) this.schedules.set(id, entries);
  }

  private settle(): void {
    const now = this.now();
    this.state.settle(now);
    for (const [serviceId, entries] of this.schedules) {
      const record = this.state.get(serviceId);
      if (record === undefined) continue;
      record['currentScaling'] = scheduledScaling(record, activeEntry(entries, now));
    }
  }

  /** The hashes the last PATCH …/password set for a service, if any (a test checks what was sent). */
  servicePassword(serviceId: string): Omit<PasswordChange, 'generated'> | undefined {
    const hashes = this.passwords.get(serviceId);
    return hashes === undefined ? undefined : { ...hashes };
  }

  /** Fixes what GET …/prometheus reports for a running service (until the next setLoad). */
  setLoad(serviceId: string, load: ServiceLoad): void {
    this.loads.set(serviceId, { ...load });
  }

  /** GET …/prometheus of this service answers `status` until `failLoad(serviceId, undefined)`. */
  failLoad(serviceId: string, status: number | undefined): void {
    if (status === undefined) this.loadFailures.delete(serviceId);
    else this.loadFailures.set(serviceId, status);
  }

  addService(record: ServiceRecordLike): void {
    if (this.state.get(record.id) !== undefined) throw new Error(`the simulator already has a service ${record.id}`);
    this.state.put(record);
  }

  removeService(id: string): boolean {
    return this.state.remove(id);
  }

  /** The activity log, oldest first (what GET …/activities serves). */
  activities(): ReturnType<OrganizationState['activities']> {
    return this.state.activities();
  }

  /**
   * Adds an activity as a console user, support or another key would leave it, e.g. next to a
   * changeOutsideBot, so that tests can tell the bot's own changes from other people's.
   */
  recordActivity(serviceId: string, type: string, actor: Actor): void {
    this.state.recordActivity(serviceId, type, actor, this.now());
  }

  // --- request log ---------------------------------------------------------------------------

  resetRequests(): void {
    this.requests.length = 0;
  }

  /** Resolves once the log holds at least `count` requests (counted since the last reset). */
  waitForRequests(count: number): Promise<readonly RecordedRequest[]> {
    return new Promise((resolve) => {
      const check = (): void => {
        if (this.requests.length < count) return;
        this.off('request', check);
        resolve([...this.requests]);
      };
      this.on('request', check);
      check();
    });
  }

  // --- lifecycle -----------------------------------------------------------------------------

  /** Stops listening and destroys every open socket (keep-alive and hanging ones too). */
  close(): Promise<void> {
    this.closed ??= new Promise<void>((resolve) => {
      this.closing.abort();
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    return this.closed;
  }

  private listen(host: string, port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        const { address, port: actualPort } = this.server.address() as AddressInfo;
        const printable = address.includes(':') ? `[${address}]` : address;
        this.address = `http://${printable}:${actualPort}`;
        resolve();
      });
    });
  }

  // --- request handling ----------------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const incoming = await readIncoming(req);
    this.record(incoming);
    const fault = this.faults.take(incoming.method);
    if (fault !== undefined && !fault.afterApply) return this.misbehave(fault.action, res);
    const reply = this.respond(incoming);
    if (fault !== undefined) return this.misbehave(fault.action, res);
    await this.latency();
    send(res, reply);
  }

  private record(incoming: Incoming): void {
    const entry: RecordedRequest = {
      method: incoming.method,
      path: incoming.url.pathname,
      query: new URLSearchParams(incoming.url.searchParams),
      body: bodyForLog(incoming.rawBody),
      at: this.now(),
    };
    this.requests.push(entry);
    this.emit('request', entry);
  }

  private async misbehave(action: FaultAction, res: ServerResponse): Promise<void> {
    // A hanging request keeps its socket open; close() destroys it.
    if (action.kind === 'hang') return;
    await this.latency();
    if (action.kind === 'drop') res.destroy();
    else if (action.kind === 'fail') send(res, failure(action.status, 'fault injected by the simulator'));
    else send(res, rateLimited(action.resetSeconds, action.retryAfterSeconds));
  }

  private async latency(): Promise<void> {
    if (this.faults.latencyMs > 0) await sleep(this.faults.latencyMs, undefined, { signal: this.closing.signal });
  }

  private onHandlerError(res: ServerResponse, error: unknown): void {
    // Closing aborts pending latencies and sockets: nothing is left to answer.
    if (this.closing.signal.aborted || res.headersSent) {
      res.destroy();
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    send(res, failure(500, `simulator error: ${message}`));
  }

  private respond(incoming: Incoming): Reply {
    const credentials = credentialsFrom(incoming.authorization);
    if (!this.accepts(credentials)) return failure(401, 'invalid or missing API key credentials');
    const resetSeconds = this.rateLimit(credentials.keyId);
    if (resetSeconds !== undefined) return rateLimited(resetSeconds);
    const { method, url } = incoming;
    const route = matchRoute(url.pathname);
    if (route === undefined) return failure(404, `no such endpoint: ${method} ${url.pathname}`);
    const allowed = METHODS_OF[route.kind];
    if (!allowed.some((candidate) => candidate === method)) {
      const allow = allowed.join(', ');
      return failure(405, `${method} is not allowed here, use ${allowed.join(' or ')}`, { allow });
    }
    if (route.orgId !== this.orgId) return failure(404, `organization ${route.orgId} not found`);
    this.settle();
    const actor: Actor = { type: 'api', id: credentials.keyId };
    switch (route.kind) {
      case 'list':
        return method === 'POST' ? this.createService(incoming.rawBody, actor) : this.listServices(url.searchParams);
      case 'activities':
        if (this.activitiesForbidden) return failure(403, 'the API key is not allowed to read activities');
        return this.listActivities(url.searchParams);
      case 'usageCost':
        return this.usageCost(url.searchParams);
      case 'service':
        if (method === 'DELETE') return this.deleteService(route.serviceId, actor);
        return method === 'GET'
          ? this.getService(route.serviceId)
          : this.patchWith(updateService, route.serviceId, incoming.rawBody, actor);
      case 'replicaScaling':
        return this.patchWith(scaleService, route.serviceId, incoming.rawBody, actor);
      case 'state':
        return this.patchWith(changeServiceState, route.serviceId, incoming.rawBody, actor);
      case 'backups':
        return this.withService(route.serviceId, () => success(this.backups(route.serviceId)));
      case 'backup':
        return this.withService(route.serviceId, () => this.getBackup(route.serviceId, route.backupId));
      case 'backupConfiguration':
        return this.withService(route.serviceId, () =>
          method === 'GET'
            ? success(this.backupConfiguration(route.serviceId))
            : this.patchBackupConfiguration(route.serviceId, incoming.rawBody),
        );
      case 'prometheus':
      case 'scalingSchedule':
      case 'upgradeWindow':
      case 'password':
      case 'serviceQueryEndpoint': {
        const setting: ServiceSettingRoute = { ...route, kind: route.kind };
        return this.withService(route.serviceId, () => this.respondServiceSetting(setting, incoming, actor));
      }
      case 'members':
      case 'member':
      case 'roles':
      case 'keys':
      case 'key':
        return this.respondAccess(route, method, incoming.rawBody, actor);
    }
  }

  /** The endpoints of a service (known to exist) that the bot does not drive yet. */
  private respondServiceSetting(route: ServiceSettingRoute, incoming: Incoming, actor: Actor): Reply {
    const { serviceId } = route;
    const { method, rawBody, url } = incoming;
    switch (route.kind) {
      case 'prometheus':
        return this.prometheus(serviceId, url.searchParams);
      case 'scalingSchedule':
        return this.scalingSchedulesDisabled
          ? failure(403, 'Scheduled autoscaling is not enabled for this organization')
          : this.scalingSchedule(method, serviceId, rawBody);
      case 'upgradeWindow':
        return this.upgradeWindow(method, serviceId, rawBody);
      case 'password':
        return this.changePassword(serviceId, rawBody, actor);
      case 'serviceQueryEndpoint':
        return this.serviceQueryEndpoint(method, serviceId, rawBody);
    }
  }

  /** The simulator's own key, while it is enabled and not expired; its usedAt follows each request. */
  private accepts(credentials: Credentials | undefined): credentials is Credentials {
    const matches =
      credentials !== undefined &&
      credentials.keyId === this.credentials.keyId &&
      credentials.keySecret === this.credentials.keySecret;
    if (!matches) return false;
    const key = this.access.keys.get(credentials.keyId);
    // A key the directory does not hold (a test seeded other keys) still authenticates.
    if (key === undefined) return true;
    if (!keyUsable(key, this.now())) return false;
    key.usedAt = usedAtOf(this.now());
    return true;
  }

  private rateLimit(keyId: string): number | undefined {
    const policy = this.faults.enforceRateLimit;
    return policy === undefined ? undefined : this.limiter.admit(keyId, policy, this.now());
  }

  private withService(serviceId: string, answer: () => Reply): Reply {
    return this.state.get(serviceId) === undefined ? failure(404, serviceNotFound(serviceId)) : answer();
  }

  /** Members, roles and keys: reads, and the PATCH/DELETE rules of access.ts. */
  private respondAccess(route: AccessRoute, method: string, rawBody: string, actor: Actor): Reply {
    const { roles, members, keys } = this.access;
    switch (route.kind) {
      case 'roles':
        return success(roles.map((role) => roleView(role, this.orgId, [...members.values()], [...keys.values()])));
      case 'members':
        return success([...members.values()].map((member) => memberView(member, roles)));
      case 'keys':
        if (this.keysForbidden) return failure(403, 'the API key is not allowed to list API keys');
        return success([...keys.values()].map((key) => keyView(key, roles)));
      case 'member':
        return this.memberRequest(route.userId, method, rawBody, actor);
      case 'key':
        return this.keyRequest(route.keyId, method, rawBody, actor);
    }
  }

  private memberRequest(userId: string, method: string, rawBody: string, actor: Actor): Reply {
    const { roles, members } = this.access;
    const member = members.get(userId);
    if (member === undefined) return failure(404, memberNotFound(userId));
    if (method === 'GET') return success(memberView(member, roles));
    if (method === 'DELETE') {
      const refused = memberDeletionRefusal(userId, [...members.values()], roles);
      if (refused !== undefined) return failure(400, refused);
      members.delete(userId);
      this.state.recordScoped({}, 'organization_member_delete', actor, this.now());
      return emptySuccess();
    }
    const body = parseJson(rawBody);
    if (!body.ok) return failure(400, 'request body is not valid JSON');
    const outcome = this.patchMemberAs(userId, body.value, actor);
    return outcome.ok ? success(memberView(outcome.value, roles)) : failure(400, outcome.message);
  }

  private keyRequest(keyId: string, method: string, rawBody: string, actor: Actor): Reply {
    const { roles, keys } = this.access;
    const key = keys.get(keyId);
    if (key === undefined) return failure(404, keyNotFound(keyId));
    if (method === 'GET') return success(keyView(key, roles));
    if (method === 'DELETE') {
      const refused = keyDeletionRefusal(keyId, actor.id);
      if (refused !== undefined) return failure(400, refused);
      keys.delete(keyId);
      // Not documented: which type a deletion is logged under; key_delete, with the key named as updates are.
      this.state.recordScoped({ targetKeyId: keyId, keyUpdateType: 'deleted' }, 'key_delete', actor, this.now());
      return emptySuccess();
    }
    const body = parseJson(rawBody);
    if (!body.ok) return failure(400, 'request body is not valid JSON');
    const outcome = this.patchKeyAs(keyId, body.value, actor);
    return outcome.ok ? success(keyView(outcome.value, roles)) : failure(400, outcome.message);
  }

  /** A member's roles replaced by `actor`, logged as organization_member_update_roles when they changed. */
  private patchMemberAs(userId: string, body: unknown, actor: Actor): Outcome<MemberRecord> {
    const before = this.access.members.get(userId)?.assignedRoleIds;
    const outcome = this.access.applyMemberPatch(userId, body) ?? { ok: false, message: memberNotFound(userId) };
    if (outcome.ok && JSON.stringify(before) !== JSON.stringify(outcome.value.assignedRoleIds))
      this.state.recordScoped({}, 'organization_member_update_roles', actor, this.now());
    return outcome;
  }

  /** A key changed by `actor`: one openapi_key_update per kind of change, naming the key (targetKeyId). */
  private patchKeyAs(keyId: string, body: unknown, actor: Actor): Outcome<KeyRecord> {
    const outcome = this.access.applyKeyPatch(keyId, body) ?? { ok: false, message: keyNotFound(keyId) };
    if (!outcome.ok) return outcome;
    for (const keyUpdateType of outcome.value.updates)
      this.state.recordScoped({ targetKeyId: keyId, keyUpdateType }, 'openapi_key_update', actor, this.now());
    return { ok: true, value: outcome.value.key };
  }

  /** POST upserts (same id), GET reads (404 when none), DELETE removes. */
  private serviceQueryEndpoint(method: string, serviceId: string, rawBody: string): Reply {
    const current = this.queryEndpoints.get(serviceId);
    if (method === 'POST') {
      const body = parseJson(rawBody);
      if (!body.ok) return failure(400, 'request body is not valid JSON');
      const outcome = upsertQueryEndpoint(current, body.value, [...this.access.keys.keys()]);
      if (!outcome.ok) return failure(400, outcome.message);
      this.queryEndpoints.set(serviceId, outcome.value);
      return success(outcome.value);
    }
    if (current === undefined) return failure(404, `no query endpoint is configured for service ${serviceId}`);
    if (method === 'GET') return success(current);
    this.queryEndpoints.delete(serviceId);
    return emptySuccess();
  }

  /** PATCH …/password: the generated password comes back only when no hash was sent. */
  private changePassword(serviceId: string, rawBody: string, actor: Actor): Reply {
    // Not documented: whether an empty body is allowed; both fields are optional, so it is.
    const body = rawBody.trim() === '' ? { ok: true as const, value: {} } : parseJson(rawBody);
    if (!body.ok) return failure(400, 'request body is not valid JSON');
    const change = changePassword(body.value);
    if (!change.ok) return failure(400, change.message);
    const { generated, ...hashes } = change.value;
    this.passwords.set(serviceId, hashes);
    this.state.recordActivity(serviceId, 'service_update_password', actor, this.now());
    return success(generated === undefined ? {} : { password: generated });
  }

  /** GET follows the warehouse's primary; PUT and DELETE are for primaries only (400). */
  private upgradeWindow(method: string, serviceId: string, rawBody: string): Reply {
    const record = this.state.get(serviceId);
    if (record === undefined) return failure(404, serviceNotFound(serviceId));
    const none = failure(404, `no upgrade window is configured for service ${serviceId}`);
    if (method === 'GET') {
      const window = this.upgradeWindows.get(windowOwner(record, this.state.list()));
      return window === undefined ? none : success(window);
    }
    const refused = secondaryRefusal(record);
    if (refused !== undefined) return failure(400, refused);
    if (method === 'DELETE') return this.upgradeWindows.delete(serviceId) ? emptySuccess() : none;
    if (this.scheduledUpgradesDisabled) return failure(403, 'Scheduled upgrades are not enabled for this organization');
    const body = parseJson(rawBody);
    if (!body.ok) return failure(400, 'request body is not valid JSON');
    const window = parseUpgradeWindow(body.value);
    if (!window.ok) return failure(400, window.message);
    this.upgradeWindows.set(serviceId, window.value);
    return success(window.value);
  }

  private scalingSchedule(method: string, serviceId: string, rawBody: string): Reply {
    const entries = this.schedules.get(serviceId);
    const record = this.state.get(serviceId);
    if (method === 'POST') return this.postScalingSchedule(serviceId, rawBody);
    if (entries === undefined || record === undefined)
      return failure(404, `no scaling schedule is configured for service ${serviceId}`);
    if (method === 'GET') return success(scheduleView(record, entries, this.now()));
    // DELETE: the base configuration is restored before the schedule goes (the document).
    this.schedules.delete(serviceId);
    this.state.put({ ...record, currentScaling: scheduledScaling(record, undefined) });
    return emptySuccess();
  }

  /** POST replaces the whole list; an empty one clears the schedule (GET is then a 404). */
  private postScalingSchedule(serviceId: string, rawBody: string): Reply {
    const body = parseJson(rawBody);
    if (!body.ok) return failure(400, 'request body is not valid JSON');
    const parsed = parseSchedule(body.value);
    if (!parsed.ok) return failure(400, parsed.message);
    const record = this.state.get(serviceId);
    if (record === undefined) return failure(404, serviceNotFound(serviceId));
    if (parsed.value.length === 0) {
      this.schedules.delete(serviceId);
      this.state.put({ ...record, currentScaling: scheduledScaling(record, undefined) });
    } else this.schedules.set(serviceId, parsed.value);
    this.settle();
    return success(scheduleView(record, parsed.value, this.now()));
  }

  /** GET …/prometheus: text, not the envelope; reading it never wakes an idle service. */
  private prometheus(serviceId: string, query: URLSearchParams): Reply {
    const filtered = parseFilteredMetrics(query.get('filtered_metrics'));
    if (!filtered.ok) return failure(400, filtered.message);
    const record = this.state.get(serviceId);
    if (record === undefined) return failure(404, serviceNotFound(serviceId));
    const failing = this.loadFailures.get(serviceId);
    if (failing !== undefined) return failure(failing, 'metrics unavailable (fault injected by the simulator)');
    const load = this.loads.get(serviceId) ?? defaultLoad(record, this.now());
    return { status: 200, body: undefined, text: prometheusText(this.orgId, record, load, this.now(), filtered.value) };
  }

  private getBackup(serviceId: string, backupId: string): Reply {
    const backup = this.backups(serviceId).find((candidate) => candidate.id === backupId);
    return backup === undefined ? failure(404, `backup ${backupId} not found`) : success(backup);
  }

  private patchBackupConfiguration(serviceId: string, rawBody: string): Reply {
    if (this.basicPackage) return failure(403, 'Cannot use customized backup schedule in BASIC pricing package');
    const body = parseJson(rawBody);
    if (!body.ok) return failure(400, 'request body is not valid JSON');
    const outcome = patchBackupConfiguration(this.backupConfiguration(serviceId), body.value);
    if (!outcome.ok) return failure(400, outcome.message);
    this.backupConfigs.set(serviceId, outcome.value);
    return success(outcome.value);
  }

  /** POST …/services: a new service, or one restored from a backup; the answer carries its password once. */
  private createService(rawBody: string, actor: Actor): Reply {
    const body = parseJson(rawBody);
    if (!body.ok) return failure(400, 'request body is not valid JSON');
    const backupId = (body.value as { backupId?: unknown } | null)?.backupId;
    const source = typeof backupId === 'string' ? this.findBackup(backupId) : undefined;
    const missing = typeof backupId === 'string' && source === undefined ? backupId : undefined;
    const created = createService(body.value, source, this.now(), missing);
    if (!created.ok) return failure(400, created.message);
    this.state.put(created.value.service);
    this.state.beginTransition(created.value.service.id, 'provisioning', 'running', this.now());
    this.state.recordActivity(created.value.service.id, 'service_create', actor, this.now());
    return success({ service: this.state.get(created.value.service.id), password: created.value.password });
  }

  /** DELETE …/services/{id}: only a stopped service; it is gone after the transition delay. */
  private deleteService(serviceId: string, actor: Actor): Reply {
    const record = this.state.get(serviceId);
    if (record === undefined) return failure(404, serviceNotFound(serviceId));
    const refused = deletionRefusal(record);
    if (refused !== undefined) return failure(400, refused);
    this.state.beginTransition(serviceId, 'terminating', null, this.now());
    this.state.recordActivity(serviceId, 'service_delete', actor, this.now());
    return emptySuccess();
  }

  private findBackup(backupId: string): { status: string; service: ServiceRecordLike } | undefined {
    for (const service of this.state.list()) {
      const backup = this.backups(service.id).find((candidate) => candidate.id === backupId);
      if (backup !== undefined) return { status: backup.status, service };
    }
    return undefined;
  }

  private listServices(query: URLSearchParams): Reply {
    return success(filterServices(this.state.list(), query.getAll('filter')));
  }

  private getService(serviceId: string): Reply {
    const record = this.state.get(serviceId);
    return record === undefined ? failure(404, `service ${serviceId} not found`) : success(record);
  }

  /** Daily costs per entity (cost.ts): from_date..to_date, UTC days, at most 31, tag filters as the list. */
  private usageCost(query: URLSearchParams): Reply {
    const all = this.state.list();
    const outcome = usageCost(query, filterServices(all, query.getAll('filter')), all, this.now());
    return outcome.ok ? success(outcome.value) : failure(400, outcome.message);
  }

  /**
   * from_date and to_date are date-times (RFC 3339, as the document's `format: date-time`: a
   * date alone, a time without seconds or offset, or a 30th of February is a 400); either may be
   * left out.
   */
  private listActivities(query: URLSearchParams): Reply {
    const bounds: Array<number | undefined> = [];
    for (const name of ['from_date', 'to_date']) {
      const text = query.get(name);
      if (text === null || text === '') {
        bounds.push(undefined);
        continue;
      }
      if (!DATE_TIME.safeParse(text).success) return failure(400, `query.${name}: 'must match format "date-time"'`);
      bounds.push(Date.parse(text));
    }
    const [from, to] = bounds;
    return success(this.state.activities(from, to));
  }

  private patchWith(apply: typeof updateService, serviceId: string, rawBody: string, actor: Actor): Reply {
    if (this.state.get(serviceId) === undefined) return failure(404, serviceNotFound(serviceId));
    const body = parseJson(rawBody);
    if (!body.ok) return failure(400, 'request body is not valid JSON');
    const outcome = apply(this.state, serviceId, body.value, actor, this.now());
    return outcome.ok ? success(outcome.value) : failure(outcome.status, outcome.message);
  }
}
