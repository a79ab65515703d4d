/**
 * Opening a Redis connection (one server, the master named by Sentinel, or a Cluster) and
 * closing it quietly. Both stores share one connection; see ConnectRedisOptions for the modes.
 */
import { Cluster, Redis, type RedisOptions } from 'ioredis';

export type RedisConnection = Redis | Cluster;

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
  if (!/^\d*$/.test(path) || !Number.isSafeInteger(db))
    throw new Error(`the database of a Redis URL is a whole number, not "${path}"`);
  return db;
}

export function connectRedis(url: string): Redis;
export function connectRedis(
  url: string | undefined,
  options: ConnectRedisOptions & { sentinel: SentinelTarget },
): Redis;
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
    ...(tls
      ? {
          dnsLookup: (address: string, callback: (error: Error | null, address: string) => void) =>
            callback(null, address),
        }
      : {}),
  });
}

interface SentinelClient {
  on(event: 'error', listener: (error: Error) => void): unknown;
}

function hasConnectToSentinel(
  value: unknown,
): value is { connectToSentinel: (endpoint: { host?: string; port?: number }, options?: object) => SentinelClient } {
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
        const reported = new Error(
          `Sentinel ${endpoint.host ?? 'localhost'}:${endpoint.port ?? 26379} (watched for failovers): ${error.message}`,
        );
        // Like ioredis: an error nobody listens to is printed, not thrown.
        if (redis.listenerCount('error') > 0) redis.emit('error', reported);
        else console.error(`[ioredis] ${reported.message}`);
      });
    }
    return client;
  };
}

/**
 * Closes a connection without waiting on a server that is gone: QUIT waits for pending replies
 * but would sit in the offline queue while disconnected.
 */
export async function closeQuietly(redis: RedisConnection): Promise<void> {
  if (redis.status !== 'ready') {
    redis.disconnect();
    return;
  }
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}
