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

/** The connection the settings name, or undefined when they name no Redis at all. */
export function openRedis(settings: RedisSettings, logger: RedisLogger): RedisConnection | undefined {
  if (settings.url === undefined && settings.sentinel === undefined) return undefined;
  if (settings.url) logger.addSecrets(decodeURIComponent(new URL(settings.url).password));
  const redis = connectRedis(settings.url, { cluster: settings.cluster, ...(settings.sentinel ? { sentinel: settings.sentinel } : {}) });
  redis.on('error', (error: Error) => logger.error(`Redis: ${error.message}`));
  logger.info(redisMode(settings));
  return redis;
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
    const nodes = sentinel.sentinels.map(({ host, port }) => `${host.includes(':') ? `[${host}]` : host}:${port}`).join(', ');
    const db = url ? new URL(url).pathname.replace(/^\//, '') : '';
    return `Redis Sentinel: master group "${sentinel.name}" through the Sentinels at ${nodes}${db && db !== '0' ? `, database ${db}` : ''}`;
  }
  if (!url) return 'no Redis';
  if (cluster) return `Redis Cluster: discovering the nodes from ${redactedUrl(url)}`;
  return `Redis: a single server at ${redactedUrl(url)}`;
}
