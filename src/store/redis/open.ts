/** Which Redis the bot talks to (from the config), opened once and described for the log. */
import type { BotLogger } from '../../log.js';
import { connectRedis, type RedisConnection, type SentinelTarget } from './connection.js';

/** REDIS_URL, REDIS_CLUSTER and REDIS_SENTINELS / REDIS_SENTINEL_NAME, as config.ts reads them. */
export interface RedisSettings {
  url: string | undefined;
  cluster: boolean;
  sentinel: SentinelTarget | undefined;
}

export type RedisLogger = Pick<BotLogger, 'addSecrets' | 'info' | 'error'>;

/** While Redis is down, its errors are logged once, then at most this often. */
export const OUTAGE_LOG_INTERVAL_MS = 60_000;

export interface OpenedRedis {
  redis: RedisConnection;
  outage: OutageWatch;
  /** "Redis at 127.0.0.1:6379", for sentences about it. */
  target: string;
}

/** The connection the settings name, or undefined when they name no Redis at all. */
export function openRedis(
  settings: RedisSettings,
  logger: RedisLogger,
  now: () => number = Date.now,
): OpenedRedis | undefined {
  if (settings.url === undefined && settings.sentinel === undefined) return undefined;
  if (settings.url) logger.addSecrets(...redisPasswordForms(settings.url));
  const redis = connectRedis(settings.url, {
    cluster: settings.cluster,
    ...(settings.sentinel ? { sentinel: settings.sentinel } : {}),
  });
  const target = redisTarget(settings);
  const outage = watchOutages(redis, target, logger, now);
  logger.info(redisMode(settings));
  return { redis, outage, target };
}

/**
 * The Redis password as written in REDIS_URL (percent-encoded: "p%40ss"), as URL parsing gives it
 * and decoded ("p@ss"): a log line may quote any of them. Every length: a short password is a
 * password too.
 */
export function redisPasswordForms(url: string): string[] {
  const written = /^[a-z]+:\/\/[^@/?#]*?:([^@/?#]*)@/i.exec(url.trim())?.[1] ?? '';
  let parsed = '';
  try {
    parsed = new URL(url).password;
  } catch {
    // config.ts checked the URL; a bad one has nothing more to offer.
  }
  const forms = [written, parsed].flatMap((form) => [form, safeDecode(form)]);
  return [...new Set(forms.filter((form) => form !== ''))];
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * ioredis reports every failed reconnect (several a second): the log gets the first error of an
 * outage, then one line a minute while it lasts, and a line when Redis answers again.
 */
/** The two events of a connection that outage logging needs (any EventEmitter in tests). */
export interface ConnectionEvents {
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
}

/** Whether the connection is in an outage, as the watcher last saw it. */
export interface OutageWatch {
  down(): boolean;
}

export function watchOutages(
  redis: ConnectionEvents,
  target: string,
  logger: Pick<RedisLogger, 'info' | 'error'>,
  now: () => number = Date.now,
): OutageWatch {
  let downSince: number | undefined;
  let lastLogged = 0;
  let suppressed = 0;
  redis.on('error', (error: Error) => {
    const at = now();
    if (downSince === undefined) {
      downSince = at;
      lastLogged = at;
      suppressed = 0;
      logger.error(
        `${target} is not answering (${redisFailureReason(error)}). The bot keeps trying, and meanwhile tells people ` +
          'that its store is not answering; this is logged again once a minute until Redis is back. ' +
          'To run without Redis, leave REDIS_URL unset: change requests then live in this process only (one replica, lost on restart).',
      );
      return;
    }
    if (at - lastLogged < OUTAGE_LOG_INTERVAL_MS) {
      suppressed += 1;
      return;
    }
    lastLogged = at;
    logger.error(
      `${target} is still not answering after ${Math.round((at - downSince) / 1000)}s (${redisFailureReason(error)}; ${suppressed + 1} failed attempts since the last report).`,
    );
    suppressed = 0;
  });
  redis.on('ready', () => {
    if (downSince === undefined) return;
    logger.info(`${target} answers again, after ${Math.round((now() - downSince) / 1000)}s.`);
    downSince = undefined;
  });
  return { down: () => downSince !== undefined };
}

/** Why Redis does not answer, in words rather than ioredis's text. */
export function redisFailureReason(error: Error): string {
  const code = (error as Error & { code?: unknown }).code;
  const text = `${typeof code === 'string' ? code : ''} ${error.message}`;
  if (/ECONNREFUSED/.test(text)) return 'the connection was refused: nothing listens there';
  if (/ETIMEDOUT|timed? ?out/i.test(text)) return 'the connection timed out';
  if (/ENOTFOUND|EAI_AGAIN/.test(text)) return 'its host name does not resolve';
  if (/ECONNRESET|EPIPE|Connection is closed/i.test(text)) return 'the connection was dropped';
  if (/NOAUTH|WRONGPASS|invalid password|AUTH/i.test(text)) return 'it refused the password of REDIS_URL';
  if (/LOADING/.test(text)) return 'it is still loading its data';
  return `it answered: ${error.message}`;
}

function redisTarget({ url, sentinel }: RedisSettings): string {
  if (sentinel) return `The Redis master "${sentinel.name}" (through its Sentinels)`;
  if (!url) return 'Redis';
  const parsed = new URL(url);
  return `Redis at ${parsed.hostname}:${parsed.port || '6379'}`;
}

/** The URL without its credentials (nor a query string, which could hold some), for logs. */
function redactedUrl(url: string): string {
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  parsed.search = '';
  parsed.hash = '';
  return parsed.toString();
}

/** Where the bot keeps its data, for the log at start: addresses and database, never credentials. */
function redisMode({ url, cluster, sentinel }: RedisSettings): string {
  if (sentinel) {
    const nodes = sentinel.sentinels
      .map(({ host, port }) => `${host.includes(':') ? `[${host}]` : host}:${port}`)
      .join(', ');
    const db = url ? new URL(url).pathname.replace(/^\//, '') : '';
    return `Redis Sentinel: master group "${sentinel.name}" through the Sentinels at ${nodes}${db && db !== '0' ? `, database ${db}` : ''}`;
  }
  if (!url) return 'no Redis';
  if (cluster) return `Redis Cluster: discovering the nodes from ${redactedUrl(url)}`;
  return `Redis: a single server at ${redactedUrl(url)}`;
}
