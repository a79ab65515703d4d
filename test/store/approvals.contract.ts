/**
 * Several approvals per request, as every ChangeStore must keep them: adding one and deciding
 * that it was the last one needed is one atomic step. Called by each backend with a way to open it.
 */
import { describe, expect, it } from 'vitest';
import type { ChangeRequest } from '../../src/core/change/types.js';
import type { Requirement } from '../../src/core/policy/types.js';
import { EXPIRED_BEFORE_DECISION } from '../../src/store/index.js';
import type { ApprovalStep, ChangeStore } from '../../src/ports/change-store.js';
import { buildChangeRequest, buildExpiredRequest } from './fixtures.js';
import { storesPerTest, type LeaseStores } from './lease.contract.js';

const prodTwo: Requirement = { rule: 'prod two', approvals: 2, approvers: ['S0DBAS'], reasons: ['env=prod'] };
const security: Requirement = { rule: 'security', approvals: 1, approvers: ['U-sec'], reasons: ['changes ip-access'] };
const logged: Requirement = { rule: 'logged', approvals: 0, approvers: [], reasons: ['every request'] };

function step(userId: string, counts: number[], at = Date.now()): ApprovalStep {
  return {
    approval: { userId, at, counts },
    audit: { summary: 'Name: analytics -> analytics-2', message: `Counts for ${counts.join(', ')}.` },
    completesMessage: 'Last approval needed.',
  };
}

export function runApprovalContract(name: string, open: () => Promise<LeaseStores> | LeaseStores): void {
  describe(`several approvals per request (${name})`, () => {
    const stores = storesPerTest(open);
    async function created(store: ChangeStore, overrides: Partial<ChangeRequest> = {}): Promise<ChangeRequest> {
      const request = buildChangeRequest({
        requirements: [prodTwo, security, logged],
        policyDigest: 'ab'.repeat(32),
        ...overrides,
      });
      await store.create(request);
      return request;
    }

    it('keeps the requirements and the digest with the request', async () => {
      const { store } = await stores();
      const request = await created(store);
      expect(await store.get(request.id)).toStrictEqual(request);
    });

    it('records approvals until the last one needed moves the request to applying', async () => {
      const { store, sibling } = await stores();
      const request = await created(store);
      const t = Date.now();
      const first = await store.addApproval(request.id, step('U-bob', [0, 1], t));
      expect(first).toStrictEqual({
        ok: true,
        complete: false,
        request: { ...request, approvals: [{ userId: 'U-bob', at: t, counts: [0, 1] }] },
      });

      expect(await store.countPending(t)).toBe(1);
      const second = await sibling.addApproval(request.id, step('U-carol', [0], t + 1));
      expect(second).toStrictEqual({
        ok: true,
        complete: true,
        request: {
          ...request,
          status: 'applying',
          decidedBy: 'U-carol',
          decidedAt: t + 1,
          approvals: [
            { userId: 'U-bob', at: t, counts: [0, 1] },
            { userId: 'U-carol', at: t + 1, counts: [0] },
          ],
        },
      });
      const audit = await store.readAudit({ limit: 5 });
      expect(audit.map((e) => [e.action, e.actorId, e.message])).toStrictEqual([
        ['approved', 'U-carol', 'Counts for 0. Last approval needed.'],
        ['approved', 'U-bob', 'Counts for 0, 1.'],
        [
          'requested',
          'U-requester',
          `Rules: prod two: 2 approvals (env=prod); security: 1 approval (changes ip-access); logged: no approval (every request). Policy sha256 ${'ab'.repeat(32)}.`,
        ],
      ]);
      expect(await store.listApplying()).toMatchObject([{ id: request.id }]);
      expect(await store.countPending(t)).toBe(0);
      expect(await store.addApproval(request.id, step('U-dave', [0]))).toMatchObject({
        ok: false,
        reason: 'conflict',
        request: { status: 'applying' },
      });
    });

    it("lists approvals in the order they were recorded, whatever the clicks' clocks said", async () => {
      const { store, sibling } = await stores();
      const request = await created(store);
      const t = Date.now();
      await store.addApproval(request.id, step('U-late-clock', [1], t + 5_000));
      const done = await sibling.addApproval(request.id, step('U-early-clock', [0], t));
      expect(done.ok && done.request.approvals?.map((a) => a.userId)).toEqual(['U-late-clock', 'U-early-clock']);
      expect((await store.get(request.id))?.approvals?.map((a) => a.at)).toEqual([t + 5_000, t]);
    });

    it('the approval that completes the request claims its lease in the same step, like a transition to applying', async () => {
      const { store, sibling } = await stores();
      const request = await created(store, { requirements: [prodTwo] });
      const claim = { owner: 'replica-b', ttlMs: 60_000 };
      const partial = await store.addApproval(request.id, {
        ...step('U-bob', [0]),
        claim: { owner: 'replica-a', ttlMs: 60_000 },
      });
      expect(partial.ok && partial.request.lease).toBeUndefined();
      const done = await sibling.addApproval(request.id, { ...step('U-carol', [0]), claim });
      if (!done.ok || !done.complete) throw new Error(`expected completion, got ${JSON.stringify(done)}`);
      expect(done.request.lease).toMatchObject({ owner: 'replica-b', fence: 1, sending: false });
      // The service was free: the approval took its lock too (the flow goes straight to reading it).
      expect(done.serviceLocked).toBe(true);
      const token = { requestId: request.id, serviceId: request.plan.serviceId, owner: 'replica-b', fence: 1 };
      expect(await store.lockService(token, 60_000)).toBe('acquired');
      expect(await store.lockService({ ...token, owner: 'replica-a' }, 60_000)).toBe('lost');
      const [entry] = await store.readAudit({ limit: 1 });
      expect(entry).toMatchObject({ action: 'approved', actorId: 'U-carol', fence: 1 });
    });

    it('counts one person once', async () => {
      const { store } = await stores();
      const request = await created(store);
      await store.addApproval(request.id, step('U-bob', [0]));
      expect(await store.addApproval(request.id, step('U-bob', [0, 1]))).toMatchObject({
        ok: false,
        reason: 'already-approved',
        request: { status: 'pending', approvals: [{ userId: 'U-bob', counts: [0] }] },
      });
    });

    it('refuses an approval that counts only for rules already met, or for no rule at all', async () => {
      const { store } = await stores();
      const request = await created(store);
      await store.addApproval(request.id, step('U-sec', [1]));
      expect(await store.addApproval(request.id, step('U-sec2', [1]))).toMatchObject({
        ok: false,
        reason: 'not-needed',
      });
      expect(await store.addApproval(request.id, step('U-x', [2]))).toMatchObject({ ok: false, reason: 'not-needed' });
      expect(await store.addApproval(request.id, step('U-y', [7]))).toMatchObject({ ok: false, reason: 'not-needed' });
      expect(await store.addApproval(request.id, step('U-z', []))).toMatchObject({ ok: false, reason: 'not-needed' });
      expect((await store.get(request.id))?.approvals).toHaveLength(1);
    });

    it('a request made before policies needs one approval', async () => {
      const { store } = await stores();
      const request = await created(store, { requirements: undefined, policyDigest: undefined });
      expect(await store.addApproval(request.id, step('U-bob', [0]))).toMatchObject({
        ok: true,
        complete: true,
        request: { status: 'applying', decidedBy: 'U-bob' },
      });
    });

    it('approvals before expiry count; after expiry nothing counts and the request expires', async () => {
      const { store } = await stores();
      const request = await created(store);
      await store.addApproval(request.id, step('U-bob', [0, 1], request.expiresAt - 1));
      const late = await store.addApproval(request.id, step('U-carol', [0], request.expiresAt));
      expect(late).toMatchObject({
        ok: false,
        reason: 'expired',
        request: { status: 'expired', approvals: [{ userId: 'U-bob' }] },
      });
      const [entry] = await store.readAudit({ limit: 1 });
      expect(entry).toMatchObject({ action: 'expired', message: EXPIRED_BEFORE_DECISION });
      expect(await store.countPending(request.expiresAt - 10)).toBe(0);
      const expired = buildExpiredRequest({ requirements: [prodTwo] });
      await store.create(expired);
      expect(await store.addApproval(expired.id, step('U-bob', [0]))).toMatchObject({ ok: false, reason: 'expired' });
    });

    it('answers missing for an unknown request', async () => {
      const { store } = await stores();
      expect(await store.addApproval('no-such-change', step('U-bob', [0]))).toStrictEqual({
        ok: false,
        reason: 'missing',
      });
    });

    it('many approvers at once on two handles: one completes, the list stays consistent', async () => {
      const { store, sibling } = await stores();
      for (let round = 0; round < 20; round++) {
        const request = await created(store, { requirements: [{ ...prodTwo, approvals: 3 }] });
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            (i % 2 === 0 ? store : sibling).addApproval(request.id, step(`U-${i}`, [0])),
          ),
        );
        expect(results.filter((r) => r.ok && r.complete)).toHaveLength(1);
        expect(results.filter((r) => r.ok)).toHaveLength(3);
        const final = await store.get(request.id);
        expect(final?.status).toBe('applying');
        expect(final?.approvals).toHaveLength(3);
        const completer = results.find((r) => r.ok && r.complete);
        expect(completer?.ok && completer.request.decidedBy).toBe(final?.decidedBy);
        expect(final?.approvals?.at(-1)?.userId).toBe(final?.decidedBy);
      }
    });
  });
}
