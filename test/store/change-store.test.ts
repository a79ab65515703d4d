/** The ChangeStore contract against the memory store and a single Redis server. */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { MemoryChangeStore, RedisChangeStore } from '../../src/store/index.js';
import { changeKeys } from '../../src/store/redis/keys.js';
import { deleteKeysWithPrefix, randomKeyPrefix, REDIS_URL } from '../support/redis.js';
import { singleRedis } from '../support/stores.js';
import { runChangeStoreContract, type OpenChangeStore } from './change-store.contract.js';

const openMemory: OpenChangeStore = (options) => {
  const store = new MemoryChangeStore(options);
  return { store, sibling: store, dispose: () => store.close(), auditSize: () => store.auditSize() };
};

describe('ChangeStore contract (memory)', () => runChangeStoreContract(openMemory));
describe('ChangeStore contract (redis)', () => runChangeStoreContract(singleRedis().changeStores));

describe('RedisChangeStore: reverts:retrying against a replica postponing meanwhile', () => {
  it('keeps a retry note another replica made good between the read of `temporary` and its cleanup', async () => {
    const keyPrefix = randomKeyPrefix();
    const keys = changeKeys(keyPrefix);
    const connection = new Redis(REDIS_URL);
    const store = new RedisChangeStore(connection, { keyPrefix });
    const sibling = new RedisChangeStore(REDIS_URL, { keyPrefix });
    try {
      const id = 'CR-0000000001';
      const due = Date.now();
      // Scheduled anew (an extension) after an earlier retry: the note is stale.
      await connection.zadd(keys.reverts, due, id);
      await connection.hset(keys.revertsRetrying, id, `${due - 600_000}:${due - 300_000}`);
      // Right after this replica read the notes, the other one fails the revert and postpones it.
      const read = connection.hgetall.bind(connection);
      connection.hgetall = async (key: string) => {
        const notes = await read(key);
        await sibling.postponeRevert(id, due + 5_000, due + 1);
        return notes;
      };
      await store.scheduledReverts();
      expect(await sibling.scheduledReverts()).toStrictEqual([{ id, dueAt: due + 5_000, overdueSince: due }]);
    } finally {
      await deleteKeysWithPrefix(keyPrefix);
      await Promise.all([store.close(), sibling.close()]);
      await connection.quit();
    }
  });
});
