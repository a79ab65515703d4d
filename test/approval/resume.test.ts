/**
 * A request of several operations whose replica lost its hold between two of them: the replica
 * that takes it over resumes at the first operation not recorded as confirmed, even when the
 * service no longer shows the earlier ones (someone changed it in the console meanwhile).
 * In process: two ApprovalFlows on one memory store, the simulator's organization in process.
 */
import { describe, expect, it } from 'vitest';
import { ApprovalFlow } from '../../src/approval/approval-flow.js';
import { ApproverPolicy } from '../../src/approval/approvers.js';
import type { ChangeStore, ServiceDirectory, UpdateOptions } from '../../src/ports/index.js';
import { InProcessDirectory } from '../../src/simulator/directory.js';
import { DEMO_IDS, demoServices } from '../../src/simulator/seed.js';
import { MemoryChangeStore } from '../../src/store/index.js';
import { ALICE, BOB, CHANNEL, recordingLog } from '../support/in-process.js';
import { RecordingMessenger } from '../support/recording-messenger.js';
import { until } from '../support/local-processes.js';

const LEASE_MS = 300;

/** Calls the fence check right before "sending", as the Cloud client does. */
function fenced(directory: InProcessDirectory): ServiceDirectory {
  const check = async (options?: UpdateOptions) => {
    await options?.beforeSend?.();
  };
  return Object.assign(Object.create(directory) as InProcessDirectory, {
    updateService: async (id: string, update: Parameters<InProcessDirectory['updateService']>[1], o?: UpdateOptions) =>
      check(o).then(() => directory.updateService(id, update)),
    scaleReplicas: async (id: string, body: Parameters<InProcessDirectory['scaleReplicas']>[1], o?: UpdateOptions) =>
      check(o).then(() => directory.scaleReplicas(id, body)),
  });
}

/** A store that loses touch with this replica once it recorded a confirmed operation. */
function cutOffAfterFirstConfirmation(store: ChangeStore): ChangeStore {
  let cut = false;
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'recordConfirmed')
        return async (...args: Parameters<ChangeStore['recordConfirmed']>) => {
          const recorded = await target.recordConfirmed(...args);
          cut = true;
          return recorded;
        };
      if (cut && (property === 'renewLease' || property === 'confirmSending')) return () => Promise.resolve(false);
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function replica(name: string, store: ChangeStore, cloud: ServiceDirectory, messenger: RecordingMessenger) {
  return new ApprovalFlow({
    cloud,
    store,
    messenger,
    policy: new ApproverPolicy({ approvers: [], allowSelfApproval: false, messenger }),
    ttlMs: 3_600_000,
    logger: recordingLog(),
    owner: name,
    leaseMs: LEASE_MS,
    updateTimeoutMs: 0,
    recheckDelaysMs: [],
  });
}

describe('a request of several operations, resumed by another replica', () => {
  it('resumes after the operations recorded as confirmed, though the service no longer shows them', async () => {
    const directory = new InProcessDirectory(demoServices());
    const store = new MemoryChangeStore();
    const messenger = new RecordingMessenger();
    const a = replica('replica-a', cutOffAfterFirstConfirmation(store), fenced(directory), messenger);
    const b = replica('replica-b', store, fenced(directory), messenger);

    const service = await directory.getService(DEMO_IDS.ordersProd);
    if (!service) throw new Error('no orders-prod');
    const filed = await a.request({
      channelId: CHANNEL,
      userId: ALICE,
      service,
      intent: { name: 'orders-main', replicas: { min: 4, max: 4 } },
    });
    if (!filed.ok) throw new Error('not filed');
    const id = filed.request.id;

    // Replica A renames, records that, then loses its hold before scaling: it says another replica settles it.
    expect((await a.decide('approve', id, BOB))?.text).toContain('Another bot replica took this request over');
    expect(directory.updates).toHaveLength(1);
    expect(directory.scalings).toHaveLength(0);
    expect((await store.get(id))?.confirmed).toMatchObject([{ index: 0, endpoint: 'update', status: 'applied' }]);

    // Meanwhile someone renames it again in the console: the rename no longer shows.
    const renamed = directory.state.get(DEMO_IDS.ordersProd);
    if (!renamed) throw new Error('no orders-prod');
    directory.state.put({ ...renamed, name: 'renamed-in-console' });

    await until('replica B to settle the request', 10_000, async () =>
      (await b.reconcileAbandoned()) > 0 ? true : undefined,
    );
    const settled = await store.get(id);
    expect(settled?.status).toBe('applied');
    expect(settled?.outcome?.operations).toMatchObject([
      { index: 0, endpoint: 'update', status: 'applied' },
      { index: 1, endpoint: 'replicaScaling', status: 'applied' },
    ]);
    // The rename was sent once (by A), the scaling once (by B); the console's name stands.
    expect(directory.updates).toHaveLength(1);
    expect(directory.scalings).toHaveLength(1);
    expect(directory.state.get(DEMO_IDS.ordersProd)?.name).toBe('renamed-in-console');
  });
});
