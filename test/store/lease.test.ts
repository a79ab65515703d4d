import { MemoryChangeStore, RedisChangeStore } from '../../src/store/index.js';
import { runLeaseContract } from './lease.contract.js';
import { REDIS_URL, deleteKeysWithPrefix, randomKeyPrefix } from './redis-harness.js';

runLeaseContract('memory', () => {
  const store = new MemoryChangeStore();
  return { store, sibling: store, dispose: () => store.close() };
});

runLeaseContract('redis', () => {
  const keyPrefix = randomKeyPrefix();
  const store = new RedisChangeStore(REDIS_URL, { keyPrefix });
  const sibling = new RedisChangeStore(REDIS_URL, { keyPrefix });
  return {
    store,
    sibling,
    dispose: async () => {
      await deleteKeysWithPrefix(keyPrefix);
      await Promise.all([store.close(), sibling.close()]);
    },
  };
});
