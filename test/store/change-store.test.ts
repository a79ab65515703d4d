/** The ChangeStore contract against the memory store and a single Redis server. */
import { describe } from 'vitest';
import { MemoryChangeStore } from '../../src/store/index.js';
import { singleRedis } from '../support/stores.js';
import { runChangeStoreContract, type OpenChangeStore } from './change-store.contract.js';

const openMemory: OpenChangeStore = (options) => {
  const store = new MemoryChangeStore(options);
  return { store, sibling: store, dispose: () => store.close(), auditSize: () => store.auditSize() };
};

describe('ChangeStore contract (memory)', () => runChangeStoreContract(openMemory));
describe('ChangeStore contract (redis)', () => runChangeStoreContract(singleRedis().changeStores));
