import { MemoryChangeStore, RedisChangeStore } from '../../src/store/index.js';
import { runApprovalContract } from './approvals.contract.js';
import { runLeaseContract, type LeaseStores } from './lease.contract.js';
import { REDIS_URL, deleteKeysWithPrefix, randomKeyPrefix } from './redis-harness.js';

function openMemory(): LeaseStores {
  const store = new MemoryChangeStore();
  return { store, sibling: store, dispose: () => store.close() };
}

function openRedis(): LeaseStores {
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
}

runLeaseContract('memory', openMemory);
runLeaseContract('redis', openRedis);
runApprovalContract('memory', openMemory);
runApprovalContract('redis', openRedis);
