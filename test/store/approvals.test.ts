import { MemoryChangeStore, RedisChangeStore } from '../../src/store/index.js';
import { runApprovalContract } from './approvals.contract.js';
import { REDIS_URL, deleteKeysWithPrefix, randomKeyPrefix } from './redis-harness.js';

runApprovalContract('memory', () => {
  const store = new MemoryChangeStore();
  return { store, sibling: store, dispose: () => store.close() };
});

runApprovalContract('redis', () => {
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
