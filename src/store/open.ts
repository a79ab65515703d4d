/**
 * The bot's stores, decided in one place: Redis when the config names one (one connection, a
 * node, the master named by Sentinel or a Cluster, serves both stores), in this process otherwise.
 * Tests may bring their own stores.
 */
import type { BotLogger } from '../log.js';
import type { ChangeStore, ScheduleStore } from '../ports/index.js';
import { MemoryChangeStore } from './memory/change-store.js';
import { MemoryScheduleStore } from './memory/schedule-store.js';
import { RedisChangeStore } from './redis/change-store.js';
import { closeQuietly, type RedisConnection } from './redis/connection.js';
import { openRedis, type RedisSettings } from './redis/open.js';
import { RedisScheduleStore } from './redis/schedule-store.js';

export interface OpenStoresOptions {
  redis: RedisSettings;
  logger: Pick<BotLogger, 'addSecrets' | 'info' | 'warn' | 'error'>;
  /** Use this store instead of the one the settings name. */
  changeStore?: ChangeStore | undefined;
  scheduleStore?: ScheduleStore | undefined;
}

export interface Stores {
  changeStore: ChangeStore;
  scheduleStore: ScheduleStore;
  close(): Promise<void>;
}

export function openStores({ redis: settings, logger, changeStore, scheduleStore }: OpenStoresOptions): Stores {
  if (changeStore && scheduleStore) return storesOf(changeStore, scheduleStore);
  const redis = openRedis(settings, logger);
  if (!redis) {
    logger.warn('IN-MEMORY STORE: REDIS_URL is not set, so change requests and schedules live in this process only and are lost on restart. Set REDIS_URL for production.');
    return storesOf(changeStore ?? new MemoryChangeStore(), scheduleStore ?? new MemoryScheduleStore());
  }
  return storesOf(changeStore ?? new RedisChangeStore(redis), scheduleStore ?? new RedisScheduleStore(redis), redis);
}

function storesOf(changeStore: ChangeStore, scheduleStore: ScheduleStore, shared?: RedisConnection): Stores {
  return {
    changeStore,
    scheduleStore,
    async close() {
      await changeStore.close();
      await scheduleStore.close();
      if (shared) await closeQuietly(shared);
    },
  };
}
