import { MemoryChangeStore } from '../../src/store/index.js';
import { singleRedis } from '../support/stores.js';
import { runLeaseContract } from './lease.contract.js';

runLeaseContract('memory', () => {
  const store = new MemoryChangeStore();
  return { store, sibling: store, dispose: () => store.close() };
});

runLeaseContract('redis', () => singleRedis().changeStores({}));
