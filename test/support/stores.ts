/**
 * Store factories for the contract suites: two stores on one fresh key prefix over two
 * connections (two replicas), whatever Redis serves them (one server, Cluster, Sentinel).
 */
import { RedisChangeStore, RedisScheduleStore, type RedisConnection } from '../../src/store/index.js';
import type { OpenChangeStore } from '../store/change-store.contract.js';
import type { OpenScheduleStore } from '../store/schedule-store.contract.js';
import { deleteKeysWithPrefix, randomKeyPrefix, REDIS_URL } from './redis.js';

/** A URL (each store opens and closes its own connection) or a connection the caller closes. */
type Connections = () => readonly [RedisConnection | string, RedisConnection | string];

export interface RedisStoreOpeners {
  changeStores: OpenChangeStore;
  scheduleStores: OpenScheduleStore;
}

/** `cleanUp` removes a prefix's keys after each case (the shared Redis outlives the tests). */
export function redisStoreOpeners(
  connections: Connections,
  cleanUp: (keyPrefix: string) => Promise<void> = () => Promise.resolve(),
): RedisStoreOpeners {
  const pair = <S extends { close(): Promise<void> }>(
    open: (connection: RedisConnection | string, keyPrefix: string) => S,
  ) => {
    const keyPrefix = randomKeyPrefix();
    const [a, b] = connections();
    const store = open(a, keyPrefix);
    const sibling = open(b, keyPrefix);
    return {
      store,
      sibling,
      dispose: async () => {
        await cleanUp(keyPrefix);
        await Promise.all([store.close(), sibling.close()]);
      },
    };
  };
  return {
    changeStores: (options) => {
      const opened = pair((connection, keyPrefix) => new RedisChangeStore(connection, { ...options, keyPrefix }));
      return { ...opened, auditSize: () => opened.store.auditSize() };
    },
    scheduleStores: () => pair((connection, keyPrefix) => new RedisScheduleStore(connection, { keyPrefix })),
  };
}

/** Stores on the shared test Redis, each with its own connection, their keys deleted afterwards. */
export const singleRedis = () => redisStoreOpeners(() => [REDIS_URL, REDIS_URL], deleteKeysWithPrefix);
