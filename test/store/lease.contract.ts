/**
 * The apply lease and the per-service lock, as every ChangeStore must keep them (memory, Redis,
 * Redis Cluster, Redis Sentinel). Called by each backend's test file with a way to open it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ChangeRequest } from '../../src/core/change/types.js';
import type { ChangeStore, LeaseToken, Transition } from '../../src/ports/change-store.js';
import { until } from '../support/local-processes.js';
import { buildChangeRequest, buildPlan, markApplied } from './fixtures.js';

export interface LeaseStores {
  store: ChangeStore;
  /** Another handle on the same data (another replica); the same object in memory. */
  sibling: ChangeStore;
  dispose(): Promise<void>;
}

const LONG_MS = 60_000;
/** Short enough that waiting for expiry is quick, long enough for a round trip to Redis. */
const SHORT_MS = 150;

function claim(owner: string, ttlMs = LONG_MS): Transition {
  return {
    from: ['pending'],
    to: 'applying',
    actorId: 'U-approver',
    now: Date.now(),
    audit: { action: 'approved', summary: 's' },
    claim: { owner, ttlMs },
  };
}

function tokenOf(request: ChangeRequest): LeaseToken {
  if (!request.lease) throw new Error(`request ${request.id} has no lease`);
  return {
    requestId: request.id,
    serviceId: request.plan.serviceId,
    owner: request.lease.owner,
    fence: request.lease.fence,
  };
}

/** Opens stores for a test and disposes of them after it (call inside a describe). */
export function storesPerTest(open: () => Promise<LeaseStores> | LeaseStores): () => Promise<LeaseStores> {
  const opened: LeaseStores[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((stores) => stores.dispose()));
  });
  return async () => {
    const s = await open();
    opened.push(s);
    return s;
  };
}

export function runLeaseContract(name: string, open: () => Promise<LeaseStores> | LeaseStores): void {
  describe(`apply lease and service lock (${name})`, () => {
    const stores = storesPerTest(open);
    async function claimed(
      store: ChangeStore,
      owner = 'replica-a',
      ttlMs = LONG_MS,
      serviceId = 'svc-1',
    ): Promise<LeaseToken> {
      const request = buildChangeRequest({ plan: buildPlan({ serviceId }) });
      await store.create(request);
      const result = await store.transition(request.id, claim(owner, ttlMs));
      if (!result.ok) throw new Error(`claim failed: ${result.reason}`);
      return tokenOf(result.request);
    }
    const takeOverWhenExpired = (store: ChangeStore, token: LeaseToken, owner: string) =>
      until('the lease to expire', 5_000, async () => {
        const request = await store.get(token.requestId);
        if (!request) throw new Error('request vanished');
        return store.takeOver(request, owner, LONG_MS);
      });

    it('grants the claimer a lease with fence 1, recorded in the audit entry of the approval', async () => {
      const { store, sibling } = await stores();
      const token = await claimed(store, 'replica-a');
      expect(token.fence).toBe(1);
      const seen = await sibling.get(token.requestId);
      expect(seen?.lease).toMatchObject({ owner: 'replica-a', fence: 1, sending: false });
      expect(seen?.lease?.until).toBeGreaterThan(Date.now());
      const [approved] = await sibling.readAudit({ limit: 1 });
      expect(approved).toMatchObject({ action: 'approved', fence: 1 });
    });

    it('renews only for the holder, and never revives an expired lease', async () => {
      const { store, sibling } = await stores();
      const token = await claimed(store, 'replica-a', SHORT_MS);
      expect(await sibling.renewLease(token, SHORT_MS)).toBe(true);
      expect(await sibling.renewLease({ ...token, owner: 'replica-b' }, LONG_MS)).toBe(false);
      expect(await sibling.renewLease({ ...token, fence: token.fence + 1 }, LONG_MS)).toBe(false);
      await until(
        'the lease to expire',
        5_000,
        async () => ((await store.get(token.requestId))?.lease?.until ?? 0) < Date.now() - 20 || undefined,
      );
      expect(await store.renewLease(token, LONG_MS)).toBe(false);
    });

    it('never lets a live lease be taken over', async () => {
      const { store, sibling } = await stores();
      const token = await claimed(store, 'replica-a');
      const request = await store.get(token.requestId);
      if (!request) throw new Error('no request');
      expect(await sibling.takeOver(request, 'replica-b', LONG_MS)).toBeUndefined();
      expect((await store.get(token.requestId))?.lease?.owner).toBe('replica-a');
    });

    it('hands an expired lease to another replica with a new fence; the old holder can then do nothing', async () => {
      const { store, sibling } = await stores();
      const old = await claimed(store, 'replica-a', SHORT_MS);
      expect(await store.lockService(old, SHORT_MS)).toBe('acquired');
      const taken = await takeOverWhenExpired(sibling, old, 'replica-b');
      expect(taken.token).toMatchObject({ owner: 'replica-b', fence: old.fence + 1 });
      expect(taken.request.lease).toMatchObject({ owner: 'replica-b', fence: old.fence + 1 });
      // Only one taker wins, however many try.
      expect(await store.takeOver(taken.request, 'replica-c', LONG_MS)).toBeUndefined();

      expect(await store.renewLease(old, LONG_MS)).toBe(false);
      expect(await store.lockService(old, LONG_MS)).toBe('lost');
      expect(await store.confirmSending(old, 0)).toBe(false);
      const late = await store.transition(old.requestId, { ...markApplied(), holder: old });
      expect(late).toMatchObject({ ok: false, reason: 'lost' });
      expect((await sibling.get(old.requestId))?.status).toBe('applying');

      const settled = await sibling.transition(old.requestId, { ...markApplied('U-reconciler'), holder: taken.token });
      expect(settled.ok).toBe(true);
      const entries = await sibling.readAudit({ limit: 1 });
      expect(entries[0]).toMatchObject({ action: 'applied', fence: old.fence + 1 });
    });

    it('lets the holder record its outcome after its lease expired as long as nobody took over', async () => {
      const { store } = await stores();
      const token = await claimed(store, 'replica-a', SHORT_MS);
      await until(
        'the lease to expire',
        5_000,
        async () => ((await store.get(token.requestId))?.lease?.until ?? 0) < Date.now() - 20 || undefined,
      );
      const result = await store.transition(token.requestId, { ...markApplied(), holder: token });
      expect(result.ok).toBe(true);
    });

    it('serialises requests of one service: the second waits until the first has recorded its outcome', async () => {
      const { store, sibling } = await stores();
      const first = await claimed(store, 'replica-a', LONG_MS, 'svc-shared');
      const second = await claimed(sibling, 'replica-b', LONG_MS, 'svc-shared');
      const other = await claimed(sibling, 'replica-b', LONG_MS, 'svc-other');
      expect(await store.lockService(first, LONG_MS)).toBe('acquired');
      expect(await store.lockService(first, LONG_MS)).toBe('acquired');
      expect(await sibling.lockService(second, LONG_MS)).toBe('busy');
      expect(await sibling.lockService(other, LONG_MS)).toBe('acquired');
      expect(await sibling.confirmSending(second, 0)).toBe(false);

      const done = await store.transition(first.requestId, { ...markApplied(), holder: first });
      expect(done.ok).toBe(true);
      expect(done.ok && done.request.lease).toBeUndefined();
      expect(await sibling.lockService(second, LONG_MS)).toBe('acquired');
    });

    it("frees a dead holder's service lock when its lease runs out", async () => {
      const { store, sibling } = await stores();
      const dead = await claimed(store, 'replica-a', SHORT_MS, 'svc-shared');
      expect(await store.lockService(dead, SHORT_MS)).toBe('acquired');
      const next = await claimed(sibling, 'replica-b', LONG_MS, 'svc-shared');
      await until('the dead lock to expire', 5_000, async () =>
        (await sibling.lockService(next, LONG_MS)) === 'acquired' ? true : undefined,
      );
    });

    it('confirms sending only with the lease, the lock and enough lease left, and marks the request', async () => {
      const { store, sibling } = await stores();
      const holder = await claimed(store, 'replica-a', LONG_MS, 'svc-shared');
      const token = await claimed(store, 'replica-a', LONG_MS, 'svc-shared');
      expect(await store.confirmSending(token, 0)).toBe(false); // the service's lock is another's
      const done = await store.transition(holder.requestId, { ...markApplied(), holder });
      expect(done.ok).toBe(true);
      expect(await store.lockService(token, LONG_MS)).toBe('acquired');
      expect(await store.confirmSending(token, LONG_MS * 2)).toBe(false); // would run out mid-send
      expect(await store.confirmSending(token, 1_000)).toBe(true);
      expect((await sibling.get(token.requestId))?.lease?.sending).toBe(true);
    });

    it('claims with a lease that is not a whole number of ms (APPROVAL_LEASE_SECONDS=16.1 is 16100.000000000002)', async () => {
      const { store, sibling } = await stores();
      const request = buildChangeRequest({ plan: buildPlan({ serviceId: 'svc-fraction' }) });
      await store.create(request);
      const taken = await store.transition(request.id, claim('replica-a', 16.1 * 1000));
      expect(taken.ok && taken.serviceLocked).toBe(true);
      expect((await sibling.get(request.id))?.status).toBe('applying');
    });

    it("a claim takes the service's lock with the lease when it is free, in the same step", async () => {
      const { store, sibling } = await stores();
      const first = buildChangeRequest({ plan: buildPlan({ serviceId: 'svc-claimed' }) });
      const second = buildChangeRequest({ plan: buildPlan({ serviceId: 'svc-claimed' }) });
      await store.create(first);
      await store.create(second);
      const taken = await store.transition(first.id, claim('replica-a', LONG_MS));
      expect(taken.ok && taken.serviceLocked).toBe(true);
      const token = taken.ok ? tokenOf(taken.request) : undefined;
      if (!token) throw new Error('claim failed');
      // The second claim gets its lease but not the lock, and is told so (it asks for the lock then).
      const waiting = await sibling.transition(second.id, claim('replica-b', LONG_MS));
      expect(waiting.ok && waiting.serviceLocked).toBeFalsy();
      const waitingToken = waiting.ok ? tokenOf(waiting.request) : undefined;
      if (!waitingToken) throw new Error('claim failed');
      expect(await sibling.lockService(waitingToken, LONG_MS)).toBe('busy');
      expect(await store.confirmSending(token, 1_000)).toBe(true);
      expect(await sibling.confirmSending(waitingToken, 0)).toBe(false);
      // The lock stays another's after the refused confirmation: the holder still settles and frees it.
      expect((await store.transition(first.id, { ...markApplied(), holder: token })).ok).toBe(true);
      expect(await sibling.lockService(waitingToken, LONG_MS)).toBe('acquired');
    });

    it("a move out of applying that names no holder leaves the service's lock to the lease that holds it", async () => {
      // Only the holder frees the lock (Transition.holder): its update may still be on its way.
      const { store, sibling } = await stores();
      const sent = await claimed(store, 'replica-a', LONG_MS, 'svc-unfenced');
      expect(await store.confirmSending(sent, 1_000)).toBe(true);
      expect((await sibling.transition(sent.requestId, markApplied())).ok).toBe(true);
      const next = buildChangeRequest({ plan: buildPlan({ serviceId: 'svc-unfenced' }) });
      await sibling.create(next);
      const waiting = await sibling.transition(next.id, claim('replica-b', LONG_MS));
      expect(waiting.ok && waiting.serviceLocked).toBeFalsy();
      const waitingToken = waiting.ok ? tokenOf(waiting.request) : undefined;
      if (!waitingToken) throw new Error('claim failed');
      expect(await sibling.lockService(waitingToken, LONG_MS)).toBe('busy');
    });

    it('records the confirmed operations only under the lease; a takeover reads them back', async () => {
      const { store, sibling } = await stores();
      const old = await claimed(store, 'replica-a', SHORT_MS);
      const first = [{ index: 0, endpoint: 'update' as const, status: 'applied' as const, apiRequestId: 'r0' }];
      expect(await store.recordConfirmed(old, first)).toBe(true);
      expect((await sibling.get(old.requestId))?.confirmed).toEqual(first);
      const taken = await takeOverWhenExpired(sibling, old, 'replica-b');
      expect(taken.request.confirmed).toEqual(first);
      // The old holder can no longer add to the record; the new one can.
      const both = [...first, { index: 1, endpoint: 'replicaScaling' as const, status: 'applied' as const }];
      expect(await store.recordConfirmed(old, both)).toBe(false);
      expect((await sibling.get(old.requestId))?.confirmed).toEqual(first);
      expect(await sibling.recordConfirmed(taken.token, both)).toBe(true);
      expect((await store.get(old.requestId))?.confirmed).toEqual(both);
    });

    it('leaves a request claimed without any lease (by an older replica) to the age rule: not taken over at once', async () => {
      const { store, sibling } = await stores();
      const request = buildChangeRequest();
      await store.create(request);
      const { claim: _none, ...withoutLease } = claim('ignored');
      expect((await store.transition(request.id, withoutLease)).ok).toBe(true);
      expect(await sibling.takeOver(request, 'replica-b', LONG_MS)).toBeUndefined();
      const old = buildChangeRequest();
      await store.create(old);
      expect((await store.transition(old.id, { ...withoutLease, now: Date.now() - 10 * 60_000 })).ok).toBe(true);
      const taken = await sibling.takeOver(old, 'replica-b', LONG_MS);
      expect(taken?.token).toMatchObject({ owner: 'replica-b', fence: 1 });
    });

    it('hands the service lock to whoever takes the request over, so the settler never waits behind itself', async () => {
      const { store, sibling } = await stores();
      const old = await claimed(store, 'replica-a', SHORT_MS, 'svc-shared');
      expect(await store.lockService(old, SHORT_MS)).toBe('acquired');
      expect(await store.confirmSending(old, 0)).toBe(true);
      const taken = await takeOverWhenExpired(sibling, old, 'replica-b');
      expect(taken.request.lease).toMatchObject({ sending: true });
      expect(taken.request.lease?.sentAt).toBeGreaterThan(0);
      expect(taken.request.lease?.takenAt).toBeGreaterThanOrEqual(taken.request.lease?.sentAt ?? 0);
      expect(await sibling.lockService(taken.token, LONG_MS)).toBe('acquired');
    });

    it('keeps the service locked once an update was sent, though its owner stopped renewing, until the request is settled', async () => {
      const { store, sibling } = await stores();
      const sent = await claimed(store, 'replica-a', SHORT_MS, 'svc-shared');
      expect(await store.lockService(sent, SHORT_MS)).toBe('acquired');
      expect(await store.confirmSending(sent, 0)).toBe(true);
      const next = await claimed(sibling, 'replica-b', LONG_MS, 'svc-shared');
      // Well past the sender's lease: its request is unsettled, so the service stays locked.
      await until(
        'the sender lease to expire',
        5_000,
        async () => ((await store.get(sent.requestId))?.lease?.until ?? 0) < Date.now() - 3 * SHORT_MS || undefined,
      );
      expect(await sibling.lockService(next, LONG_MS)).toBe('busy');
      const taken = await sibling.takeOver(
        { id: sent.requestId, plan: buildPlan({ serviceId: 'svc-shared' }) },
        'replica-c',
        LONG_MS,
      );
      if (!taken) throw new Error('not taken over');
      expect((await sibling.transition(sent.requestId, { ...markApplied(), holder: taken.token })).ok).toBe(true);
      expect(await sibling.lockService(next, LONG_MS)).toBe('acquired');
    });
  });
}
