/**
 * ChangeStore over Redis (standalone, Sentinel or Cluster), for running more than one replica. Every change
 * of state is one Lua script (see redis-scripts.ts), so two approvers on two replicas can never
 * both win a transition. Key layout: redis-keys.ts; field layout: redis-codec.ts.
 */
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { ChangeRequest } from '../core/change/types.js';
import { changeKeys, type ChangeKeys } from './redis-keys.js';
import {
  auditFromStreamEntry,
  auditToStreamArgs,
  hashFromFlatReply,
  requestFromHash,
  requestToHashArgs,
  StoredDataError,
} from './redis-codec.js';
import {
  ADD_APPROVAL_COMMAND,
  ADD_APPROVAL_LUA,
  CREATE_COMMAND,
  CREATE_LUA,
  SET_MESSAGE_TS_COMMAND,
  SET_MESSAGE_TS_LUA,
  TRANSITION_COMMAND,
  TRANSITION_LUA,
} from './redis-scripts.js';
import {
  AUDIT_MAX_ENTRIES,
  AUDIT_SCAN_MAX,
  DEFAULT_RETENTION_SECONDS,
  EXPIRED_BEFORE_DECISION,
  assertCreatable,
  byCreation,
  duplicateRequestError,
  requestedAuditEntry,
  retentionDeadline,
} from './store-rules.js';
import type { ApprovalResult, ApprovalStep, AuditEntry, ChangeStore, Transition, TransitionResult } from './types.js';

export type RedisConnection = Redis | Cluster;

export interface RedisChangeStoreOptions {
  /** Prepended to every key (default "chbot:"); must not contain braces. Tests use a random one. */
  keyPrefix?: string;
  /** Finished requests stay readable this long after expiresAt (default 7 days). */
  retentionSeconds?: number;
  /**
   * Receives the connection's error events when the store opened the connection from a URL.
   * Without it ioredis prints them to the console itself.
   */
  onConnectionError?: (error: Error) => void;
}

/** ping() answers false after this long rather than waiting for a reconnect. */
const PING_TIMEOUT_MS = 2_000;
/** Entries fetched per XREVRANGE when filtering by service. */
const AUDIT_PAGE_SIZE = 500;

type ScriptArg = string | number;
export type ScriptCommand = (...args: ScriptArg[]) => Promise<unknown>;

/**
 * Connection for a URL. ioredis would by default queue commands forever while Redis is down,
 * so a click would hang. Instead:
 * - the offline queue stays on, so commands sent during the first connect or a short blip
 *   still go through once connected;
 * - maxRetriesPerRequest 1 rejects queued commands after one failed reconnect attempt;
 * - connectTimeout bounds a connect to an address that never answers;
 * - commandTimeout bounds every command, queued or sent, including against a hung server.
 * Reconnection itself keeps going in the background (ioredis's default backoff, max 2 s).
 */
const NODE_OPTIONS = {
  maxRetriesPerRequest: 1,
  enableOfflineQueue: true,
  connectTimeout: 2_000,
  commandTimeout: 5_000,
} satisfies RedisOptions;

export interface SentinelTarget {
  /** Sentinel nodes to ask; ioredis adds the other Sentinels they know of. */
  sentinels: Array<{ host: string; port: number }>;
  /** The master group name of `sentinel monitor <name> ...`. */
  name: string;
}

export interface ConnectRedisOptions {
  /**
   * The URL names one seed node of a Redis Cluster (REDIS_CLUSTER=true): the other nodes and the
   * slot map are discovered from it, and MOVED/ASK redirections are followed. Every node gets the
   * URL's credentials and TLS setting. The stores keep each script's keys under one hash tag
   * ({changes}, {schedules}), so every script runs on a single node.
   */
  cluster?: boolean;
  /**
   * The master is asked of these Sentinels (REDIS_SENTINELS) instead of taken from the URL, whose
   * host and port are then ignored and which may be left out: only its user name, password,
   * database and TLS setting are used (for the data nodes; the Sentinels are asked without
   * credentials). After a failover the connection reconnects to the promoted replica; it also
   * listens for Sentinel's +switch-master, so it leaves a demoted master that is still up
   * (a manual failover) at once instead of writing to it until Sentinel reconfigures it.
   */
  sentinel?: SentinelTarget;
}

/** What a URL says besides its host and port. */
function urlSettings(url: string) {
  const parsed = new URL(url);
  const username = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  return {
    tls: parsed.protocol === 'rediss:',
    /** The path: the database number, as in redis://host/3 (empty for none). */
    db: parsed.pathname.replace(/^\//, ''),
    credentials: { ...(username ? { username } : {}), ...(password ? { password } : {}) },
  };
}

function databaseNumber(path: string): number {
  const db = Number(path || 0);
  if (!/^\d*$/.test(path) || !Number.isSafeInteger(db)) throw new Error(`the database of a Redis URL is a whole number, not "${path}"`);
  return db;
}

export function connectRedis(url: string): Redis;
export function connectRedis(url: string | undefined, options: ConnectRedisOptions & { sentinel: SentinelTarget }): Redis;
export function connectRedis(url: string | undefined, options: ConnectRedisOptions): RedisConnection;
export function connectRedis(url: string | undefined, options: ConnectRedisOptions = {}): RedisConnection {
  if (options.sentinel) {
    if (options.cluster) throw new Error('a Redis connection is either through Sentinel or to a Cluster, not both');
    const settings = url === undefined ? undefined : urlSettings(url);
    const redis = new Redis({
      ...NODE_OPTIONS,
      sentinels: options.sentinel.sentinels,
      name: options.sentinel.name,
      // A Sentinel that accepts the connection and then never answers is given up on like a node.
      sentinelCommandTimeout: NODE_OPTIONS.connectTimeout,
      failoverDetector: true,
      ...(settings ? { ...settings.credentials, db: databaseNumber(settings.db) } : {}),
      ...(settings?.tls ? { tls: {}, enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
    });
    reportFailoverDetectorErrors(redis);
    return redis;
  }
  if (url === undefined) throw new Error('a Redis URL is required without Sentinel');
  if (!options.cluster) return new Redis(url, NODE_OPTIONS);
  const seed = new URL(url);
  const { tls, credentials } = urlSettings(url);
  return new Cluster([{ host: seed.hostname.replace(/^\[|\]$/g, ''), port: Number(seed.port || 6379) }], {
    redisOptions: {
      ...NODE_OPTIONS,
      ...credentials,
      ...(tls ? { tls: {} } : {}),
    },
    enableOfflineQueue: true,
    // ioredis's advice for TLS clusters (e.g. ElastiCache): connect to announced host names as
    // given, so the certificates issued for them match.
    ...(tls ? { dnsLookup: (address: string, callback: (error: Error | null, address: string) => void) => callback(null, address) } : {}),
  });
}

interface SentinelClient {
  on(event: 'error', listener: (error: Error) => void): unknown;
}

function hasConnectToSentinel(value: unknown): value is { connectToSentinel: (endpoint: { host?: string; port?: number }, options?: object) => SentinelClient } {
  return typeof value === 'object' && value !== null && typeof Reflect.get(value, 'connectToSentinel') === 'function';
}

/**
 * ioredis's failover detector subscribes to every Sentinel with connections of its own that have
 * no error listener, so an unreachable Sentinel would be printed by ioredis itself ("[ioredis]
 * Unhandled error event", on every reconnect and every minute after). Their errors go to this
 * connection's error listeners instead (the bot's log), naming the Sentinel. This reaches into
 * ioredis's connector (5.x); should that change, the detector still works and only the printing
 * comes back, which test/sentinel would notice.
 */
function reportFailoverDetectorErrors(redis: Redis): void {
  const connector: unknown = Reflect.get(redis, 'connector');
  if (!hasConnectToSentinel(connector)) return;
  const open = connector.connectToSentinel.bind(connector);
  connector.connectToSentinel = (endpoint, options) => {
    const client = open(endpoint, options);
    // Only the detector passes options; the one-off lookups of the master handle their errors.
    if (options !== undefined) {
      client.on('error', (error) => {
        const reported = new Error(`Sentinel ${endpoint.host ?? 'localhost'}:${endpoint.port ?? 26379} (watched for failovers): ${error.message}`);
        // Like ioredis: an error nobody listens to is printed, not thrown.
        if (redis.listenerCount('error') > 0) redis.emit('error', reported);
        else console.error(`[ioredis] ${reported.message}`);
      });
    }
    return client;
  };
}

function isScriptCommand(value: unknown): value is ScriptCommand {
  return typeof value === 'function';
}

/** A command registered with defineCommand (EVALSHA, falling back to EVAL when not cached). */
export function defineScript(redis: RedisConnection, name: string, numberOfKeys: number, lua: string): ScriptCommand {
  redis.defineCommand(name, { numberOfKeys, lua });
  const command: unknown = Reflect.get(redis, name);
  if (!isScriptCommand(command)) throw new Error(`ioredis did not define ${name}`);
  return (...args) => command.apply(redis, args);
}

export class RedisChangeStore implements ChangeStore {
  private readonly redis: RedisConnection;
  /**
   * Only a connection the store opened (from a URL) is closed by close(); an instance passed in
   * belongs to the caller, who may share it and closes it when it sees fit.
   */
  private readonly ownsConnection: boolean;
  private readonly keys: ChangeKeys;
  private readonly retentionSeconds: number;
  private readonly createScript: ScriptCommand;
  private readonly transitionScript: ScriptCommand;
  private readonly setMessageTsScript: ScriptCommand;
  private readonly addApprovalScript: ScriptCommand;

  constructor(connection: RedisConnection | string, options: RedisChangeStoreOptions = {}) {
    this.keys = changeKeys(options.keyPrefix);
    this.retentionSeconds = options.retentionSeconds ?? DEFAULT_RETENTION_SECONDS;
    this.ownsConnection = typeof connection === 'string';
    this.redis = typeof connection === 'string' ? connectRedis(connection) : connection;
    const { onConnectionError } = options;
    if (this.ownsConnection && onConnectionError) this.redis.on('error', (error: Error) => onConnectionError(error));
    this.createScript = defineScript(this.redis, CREATE_COMMAND, 3, CREATE_LUA);
    this.transitionScript = defineScript(this.redis, TRANSITION_COMMAND, 3, TRANSITION_LUA);
    this.setMessageTsScript = defineScript(this.redis, SET_MESSAGE_TS_COMMAND, 1, SET_MESSAGE_TS_LUA);
    this.addApprovalScript = defineScript(this.redis, ADD_APPROVAL_COMMAND, 3, ADD_APPROVAL_LUA);
  }

  async create(request: ChangeRequest): Promise<void> {
    assertCreatable(request);
    const wallNow = Date.now();
    const deadline = retentionDeadline(request, this.retentionSeconds);
    const hashArgs = requestToHashArgs(request);
    const created = await this.createScript(
      this.keys.request(request.id),
      this.keys.pending(request.channelId),
      this.keys.audit,
      request.id,
      request.expiresAt,
      deadline,
      deadline - wallNow,
      wallNow - this.retentionSeconds * 1000,
      AUDIT_MAX_ENTRIES,
      hashArgs.length,
      ...hashArgs,
      ...auditToStreamArgs(requestedAuditEntry(request)),
    );
    if (created === 0) throw duplicateRequestError(request.id);
  }

  async get(id: string): Promise<ChangeRequest | undefined> {
    return requestFromHash(await this.redis.hgetall(this.keys.request(id)));
  }

  async setMessageTs(id: string, messageTs: string): Promise<void> {
    await this.setMessageTsScript(this.keys.request(id), messageTs);
  }

  async transition(id: string, transition: Transition): Promise<TransitionResult> {
    const { audit } = transition;
    const reply = await this.transitionScript(
      this.keys.request(id),
      this.keys.applying,
      this.keys.audit,
      id,
      transition.now,
      transition.to,
      transition.actorId,
      transition.outcome ? JSON.stringify(transition.outcome) : '',
      AUDIT_MAX_ENTRIES,
      audit.action,
      audit.summary,
      audit.apiRequestId ?? '',
      audit.message ?? '',
      EXPIRED_BEFORE_DECISION,
      ...transition.from,
    );
    return transitionResultFromReply(reply);
  }

  async addApproval(id: string, step: ApprovalStep): Promise<ApprovalResult> {
    const { approval } = step;
    const reply = await this.addApprovalScript(
      this.keys.request(id),
      this.keys.applying,
      this.keys.audit,
      id,
      approval.at,
      approval.userId,
      approval.counts.join(','),
      AUDIT_MAX_ENTRIES,
      step.audit.summary,
      step.audit.message ?? '',
      step.completesMessage ?? '',
      EXPIRED_BEFORE_DECISION,
    );
    return approvalResultFromReply(reply);
  }

  async listPending(channelId: string, now: number): Promise<ChangeRequest[]> {
    const ids = await this.redis.zrangebyscore(this.keys.pending(channelId), `(${now}`, '+inf');
    const requests = await this.getMany(ids);
    return requests.filter((r) => r.status === 'pending' && r.expiresAt > now).sort(byCreation);
  }

  async listApplying(): Promise<ChangeRequest[]> {
    const ids = await this.redis.smembers(this.keys.applying);
    const requests = await this.getMany(ids);
    await this.forgetVanished(ids, requests);
    // Transitions keep the set exact; the status check only guards against a stale read.
    return requests.filter((r) => r.status === 'applying').sort(byCreation);
  }

  async readAudit(options: { serviceId?: string; limit: number }): Promise<AuditEntry[]> {
    const found: AuditEntry[] = [];
    let scanned = 0;
    let end = '+';
    while (found.length < options.limit && scanned < AUDIT_SCAN_MAX) {
      const wanted = options.serviceId === undefined ? options.limit - found.length : AUDIT_PAGE_SIZE;
      const count = Math.min(wanted, AUDIT_SCAN_MAX - scanned);
      const page = await this.redis.xrevrange(this.keys.audit, end, '-', 'COUNT', count);
      for (const [id, fields] of page) {
        const entry = auditFromStreamEntry(id, fields);
        if (entry && (options.serviceId === undefined || entry.serviceId === options.serviceId)) found.push(entry);
        if (found.length === options.limit) break;
      }
      const last = page.at(-1);
      if (!last || page.length < count) break;
      scanned += page.length;
      end = `(${last[0]}`;
    }
    return found;
  }

  /** False, never an exception, when Redis cannot be reached within PING_TIMEOUT_MS. */
  async ping(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS);
    });
    try {
      const answered = this.redis.ping().then((reply) => reply === 'PONG');
      return await Promise.race([answered, timedOut]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    if (!this.ownsConnection) return;
    // QUIT waits for pending replies but would sit in the offline queue while disconnected.
    if (this.redis.status !== 'ready') {
      this.redis.disconnect();
      return;
    }
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }

  /** HGETALL in one pipeline; ids whose hash is gone are left out. */
  private async getMany(ids: string[]): Promise<ChangeRequest[]> {
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.keys.request(id));
    const replies = (await pipeline.exec()) ?? [];
    const requests: ChangeRequest[] = [];
    for (const [error, hash] of replies) {
      if (error) throw error;
      const request = requestFromHash(asStringRecord(hash));
      if (request) requests.push(request);
    }
    return requests;
  }

  /**
   * Drops from the applying set the ids whose request hash has expired (stuck in applying for
   * longer than the retention). Ids never come back, so this cannot race with a transition.
   */
  private async forgetVanished(ids: string[], found: ChangeRequest[]): Promise<void> {
    const present = new Set(found.map((r) => r.id));
    const vanished = ids.filter((id) => !present.has(id));
    if (vanished.length > 0) await this.redis.srem(this.keys.applying, ...vanished);
  }
}

function asStringRecord(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null) throw new StoredDataError('HGETALL reply is not a map');
  const record: Record<string, string> = {};
  for (const [field, fieldValue] of Object.entries(value)) {
    if (typeof fieldValue !== 'string') throw new StoredDataError(`hash field ${field} is not a string`);
    record[field] = fieldValue;
  }
  return record;
}

function transitionResultFromReply(reply: unknown): TransitionResult {
  if (!Array.isArray(reply) || typeof reply[0] !== 'string') throw new StoredDataError('transition reply');
  const reason: string = reply[0];
  if (reason === 'missing') return { ok: false, reason };
  const request = requestFromHash(hashFromFlatReply(reply[1]));
  if (!request) throw new StoredDataError('transition reply lacks the request');
  if (reason === 'ok') return { ok: true, request };
  if (reason === 'conflict' || reason === 'expired') return { ok: false, reason, request };
  throw new StoredDataError(`transition reason ${reason}`);
}

function approvalResultFromReply(reply: unknown): ApprovalResult {
  if (!Array.isArray(reply) || typeof reply[0] !== 'string') throw new StoredDataError('approval reply');
  const reason: string = reply[0];
  if (reason === 'missing') return { ok: false, reason };
  const request = requestFromHash(hashFromFlatReply(reply[2]));
  if (!request) throw new StoredDataError('approval reply lacks the request');
  if (reason === 'ok') return { ok: true, request, complete: reply[1] === 1 };
  if (reason === 'conflict' || reason === 'expired' || reason === 'already-approved' || reason === 'not-needed') return { ok: false, reason, request };
  throw new StoredDataError(`approval reason ${reason}`);
}
