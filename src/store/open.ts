/**
 * The bot's stores, decided in one place: Redis when the config names one (one connection, a
 * node, the master named by Sentinel or a Cluster, serves both stores), in this process otherwise.
 * Tests may bring their own stores.
 */
import type { BotLogger } from '../log.js';
import type { ChangeStore, CostDayStore, ScheduleStore } from '../ports/index.js';
import { MemoryCostStore } from './memory/cost-store.js';
import { RedisCostStore } from './redis/cost-store.js';
import { isStoreUnavailable } from '../ports/store-errors.js';
import { MemoryChangeStore } from './memory/change-store.js';
import { MemoryScheduleStore } from './memory/schedule-store.js';
import { RedisChangeStore } from './redis/change-store.js';
import { closeQuietly, type RedisConnection } from './redis/connection.js';
import { openRedis, type RedisSettings } from './redis/open.js';
import { RedisScheduleStore } from './redis/schedule-store.js';
import { RedisSecretVault } from './redis/secret-vault.js';
import { MemorySecretVault } from './memory/secret-vault.js';
import { SecretCipher } from './secret-cipher.js';
import type { SecretVault } from '../ports/secret-vault.js';

export interface OpenStoresOptions {
  redis: RedisSettings;
  logger: Pick<BotLogger, 'addSecrets' | 'info' | 'warn' | 'error'>;
  /** Use this store instead of the one the settings name. */
  changeStore?: ChangeStore | undefined;
  scheduleStore?: ScheduleStore | undefined;
  costStore?: CostDayStore | undefined;
  /** AUDIT_RETENTION_DAYS. */
  auditRetentionDays?: number;
  /** SECRETS_KEY's bytes: secrets are sealed with it in Redis; without it they stay in memory. */
  secretsKey?: Buffer | undefined;
  secretVault?: SecretVault | undefined;
}

export interface Stores {
  changeStore: ChangeStore;
  scheduleStore: ScheduleStore;
  /** Usage cost days read so far and cost alert claims (shared by replicas over Redis). */
  costStore: CostDayStore;
  /** Secrets waiting to be revealed by one person (sealed in Redis with SECRETS_KEY, else in memory). */
  secretVault: SecretVault;
  /** A sentence for a store that does not answer at start (where, and how to run without it); other errors as they are. */
  explainStartFailure(error: unknown): unknown;
  /**
   * True while the store's connection is known to be down (the outage is being logged once a
   * minute): loops that fail meanwhile need not say so again.
   */
  down(): boolean;
  close(): Promise<void>;
}

export function openStores({
  redis: settings,
  logger,
  changeStore,
  scheduleStore,
  costStore,
  auditRetentionDays,
  secretsKey,
  secretVault,
}: OpenStoresOptions): Stores {
  const audit = auditRetentionDays === undefined ? {} : { auditRetentionDays };
  if (!secretVault && !secretsKey)
    logger.warn(
      "SECRETS_KEY is not set: secrets waiting to be revealed (a restored service's password) stay in this process's memory only, and are lost if it stops. Set SECRETS_KEY (`openssl rand -hex 32`) to keep them encrypted in Redis.",
    );
  const memoryVault = () => secretVault ?? new MemorySecretVault();
  if (changeStore && scheduleStore)
    return storesOf(changeStore, scheduleStore, costStore ?? new MemoryCostStore(), memoryVault());
  const opened = openRedis(settings, logger);
  if (!opened) {
    logger.warn(
      'IN-MEMORY STORE: REDIS_URL is not set, so change requests and schedules live in this process only and are lost on restart. Set REDIS_URL for production.',
    );
    return storesOf(
      changeStore ?? new MemoryChangeStore(audit),
      scheduleStore ?? new MemoryScheduleStore(),
      costStore ?? new MemoryCostStore(),
      memoryVault(),
    );
  }
  const { redis, target, outage } = opened;
  const stores = storesOf(
    changeStore ?? new RedisChangeStore(redis, audit),
    scheduleStore ?? new RedisScheduleStore(redis),
    costStore ?? new RedisCostStore(redis),
    secretVault ?? (secretsKey ? new RedisSecretVault(redis, new SecretCipher(secretsKey)) : new MemorySecretVault()),
    redis,
  );
  return {
    ...stores,
    down: () => outage.down(),
    explainStartFailure: (error) =>
      isStoreUnavailable(error)
        ? new Error(
            `${target} is not answering. Start it or point REDIS_URL at one that answers; ` +
              'or leave REDIS_URL unset to keep change requests in this process only (one replica, lost on restart).',
          )
        : error,
  };
}

function storesOf(
  changeStore: ChangeStore,
  scheduleStore: ScheduleStore,
  costStore: CostDayStore,
  secretVault: SecretVault,
  shared?: RedisConnection,
): Stores {
  return {
    changeStore,
    scheduleStore,
    costStore,
    secretVault,
    explainStartFailure: (error) => error,
    down: () => false,
    async close() {
      await changeStore.close();
      await scheduleStore.close();
      await secretVault.close();
      if (shared) await closeQuietly(shared);
    },
  };
}
