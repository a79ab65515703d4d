export type * from './types.js';
export { MemoryChangeStore, type MemoryChangeStoreOptions } from './memory-store.js';
export { RedisChangeStore, type RedisChangeStoreOptions, type RedisConnection } from './redis-store.js';
export { DEFAULT_KEY_PREFIX } from './redis-keys.js';
export { StoredDataError } from './redis-codec.js';
export { DEFAULT_RETENTION_SECONDS, EXPIRED_BEFORE_DECISION, summarizeChanges } from './store-rules.js';
