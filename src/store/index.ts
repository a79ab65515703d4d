/** The store adapters: store/memory (one process) and store/redis (replicas); ports/ has the interfaces. */
export { MemoryChangeStore, type MemoryChangeStoreOptions } from './memory/change-store.js';
export { MemoryScheduleStore } from './memory/schedule-store.js';
export { RedisChangeStore, type RedisChangeStoreOptions } from './redis/change-store.js';
export { StoredDataError } from './redis/codec.js';
export {
  closeQuietly,
  connectRedis,
  type ConnectRedisOptions,
  type RedisConnection,
  type SentinelTarget,
} from './redis/connection.js';
export { DEFAULT_KEY_PREFIX } from './redis/keys.js';
export { RedisScheduleStore } from './redis/schedule-store.js';
export { DEFAULT_RETENTION_SECONDS, EXPIRED_BEFORE_DECISION } from './rules.js';
