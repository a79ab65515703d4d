import { MemoryChangeStore } from '../../src/store/index.js';
import { singleRedis } from '../support/stores.js';
import { runApprovalContract } from './approvals.contract.js';
import { runLeaseContract, type LeaseStores } from './lease.contract.js';

function openMemory(): LeaseStores {
  const store = new MemoryChangeStore();
  return { store, sibling: store, dispose: () => store.close() };
}

runLeaseContract('memory', openMemory);
runLeaseContract('redis', () => singleRedis().changeStores({}));
runApprovalContract('memory', openMemory);
runApprovalContract('redis', () => singleRedis().changeStores({}));
