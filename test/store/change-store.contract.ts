/**
 * The ChangeStore contract: one behaviour for every store. Each backend's test file calls
 * runChangeStoreContract with a way to open its store (memory and Redis in change-store.test.ts,
 * Redis Cluster and Redis Sentinel in their own folders, which start those servers).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChangeRequest } from '../../src/core/change/types.js';
import type { ChangeStore, Transition } from '../../src/ports/change-store.js';
import { EXPIRED_BEFORE_DECISION } from '../../src/store/index.js';
import { HOUR_MS, approve, buildChangeRequest, buildExpiredRequest, buildPlan, markApplied } from './fixtures.js';
import { anyString } from '../support/matchers.js';

const DAY_MS = 86_400_000;
/** A retention a test can see pass. */
const AUDIT_RETENTION_MS = 1_200;

export interface ChangeStoreOptions {
  retentionSeconds?: number;
  /** Fractions of a day let a test see the retention pass. */
  auditRetentionDays?: number;
}

export interface OpenedChangeStore {
  store: ChangeStore;
  /** Another handle on the same data; for Redis a second connection. */
  sibling: ChangeStore;
  dispose(): Promise<void>;
  /** Audit entries the store holds, expired ones not yet trimmed included. */
  auditSize: () => Promise<number>;
}

export type OpenChangeStore = (options: ChangeStoreOptions) => OpenedChangeStore;

export function runChangeStoreContract(open: OpenChangeStore): void {
  const opened: OpenedChangeStore[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((harness) => harness.dispose()));
  });

  function openHarness(options: ChangeStoreOptions = {}): OpenedChangeStore {
    const harness = open(options);
    opened.push(harness);
    return harness;
  }

  async function created(store: ChangeStore, overrides: Partial<ChangeRequest> = {}): Promise<ChangeRequest> {
    const request = buildChangeRequest(overrides);
    await store.create(request);
    return request;
  }

  describe('Home tabs people look at', () => {
    it('says which of these people opened their Home since a time, the latest opening counting', async () => {
      const { store } = openHarness();
      await store.noteHomeOpened('U0OLD', 1_000);
      await store.noteHomeOpened('U0NEW', 5_000);
      await store.noteHomeOpened('U0OLD', 2_000);
      expect(await store.homesOpenedSince(['U0OLD', 'U0NEW', 'U0NEVER'], 2_000)).toStrictEqual(['U0OLD', 'U0NEW']);
      expect(await store.homesOpenedSince(['U0OLD', 'U0NEW'], 3_000)).toStrictEqual(['U0NEW']);
      expect(await store.homesOpenedSince([], 0)).toStrictEqual([]);
    });
  });

  describe('copies of a request', () => {
    it('keeps where a request was also sent, oldest first, each request its own', async () => {
      const { store } = openHarness();
      const request = await created(store);
      expect(await store.copiesOf(request.id)).toStrictEqual([]);
      await store.recordCopy(request, { channelId: 'D0ANA', ts: '1.1' });
      await store.recordCopy(request, { channelId: 'D0BOB', ts: '1.2' });
      await store.recordCopy({ id: 'CR-OTHER00001', expiresAt: request.expiresAt }, { channelId: 'D0ANA', ts: '2.1' });
      expect(await store.copiesOf(request.id)).toStrictEqual([
        { channelId: 'D0ANA', ts: '1.1' },
        { channelId: 'D0BOB', ts: '1.2' },
      ]);
    });
  });

  describe('create and get', () => {
    it('returns the request as created, empty arrays included', async () => {
      const { store } = openHarness();
      const request = await created(store);
      const stored = await store.get(request.id);
      expect(stored).toStrictEqual(request);
      expect(stored?.plan.warnings).toStrictEqual([]);
      expect(stored?.plan.before.privateEndpointIds).toStrictEqual([]);
      expect(stored?.plan.update.ipAccessList?.remove).toStrictEqual([]);
    });

    it("keeps a request's reason and ticket, writes them on its requested entry, and a rejection's reason", async () => {
      const { store } = openHarness();
      const request = await created(store, { reason: 'INC-7 rollback', ticket: 'OPS-42' });
      expect(await store.get(request.id)).toMatchObject({ reason: 'INC-7 rollback', ticket: 'OPS-42' });
      const rejected = await store.transition(request.id, {
        from: ['pending'],
        to: 'rejected',
        actorId: 'U-approver',
        now: Date.now(),
        outcome: { rejectedBecause: 'use staging' },
        audit: { action: 'rejected', summary: 's', message: 'Reason: use staging' },
      });
      expect(rejected.ok).toBe(true);
      expect((await store.get(request.id))?.outcome).toStrictEqual({ rejectedBecause: 'use staging' });
      const audit = await store.readAudit({ channelId: request.channelId, limit: 10 });
      const mine = audit.filter((e) => e.changeId === request.id);
      expect(mine.find((e) => e.action === 'requested')).toMatchObject({ reason: 'INC-7 rollback', ticket: 'OPS-42' });
      expect(mine.find((e) => e.action === 'rejected')).toMatchObject({ message: 'Reason: use staging' });
      expect(mine.find((e) => e.action === 'rejected')).not.toHaveProperty('reason');
    });

    it('returns undefined for an unknown id', async () => {
      const { store } = openHarness();
      expect(await store.get('no-such-change')).toBeUndefined();
    });

    it('refuses a second request with the same id', async () => {
      const { store } = openHarness();
      const request = await created(store);
      await expect(store.create({ ...request, requesterId: 'U-other' })).rejects.toThrow(/already exists/);
      expect((await store.get(request.id))?.requesterId).toBe('U-requester');
    });

    it('refuses a request that is not pending', async () => {
      const { store } = openHarness();
      await expect(store.create(buildChangeRequest({ status: 'applied' }))).rejects.toThrow(/pending/);
    });

    it('hands out copies that callers cannot use to change its state', async () => {
      const { store } = openHarness();
      const request = await created(store);
      request.plan.warnings.push('mutated after create');
      const first = await store.get(request.id);
      first?.plan.changes.splice(0);
      if (first) first.status = 'applied';
      const second = await store.get(request.id);
      expect(second?.status).toBe('pending');
      expect(second?.plan.changes).toHaveLength(2);
      expect(second?.plan.warnings).toStrictEqual([]);
    });

    it('forgets requests once their retention after expiry has passed', async () => {
      const { store } = openHarness({ retentionSeconds: 1 });
      const request = buildExpiredRequest();
      await store.create(request);
      expect(await store.get(request.id)).toBeUndefined();
      expect(await store.transition(request.id, approve())).toStrictEqual({ ok: false, reason: 'missing' });
    });
  });

  describe('setMessageTs', () => {
    it('records the ts of the request message', async () => {
      const { store } = openHarness();
      const request = await created(store);
      await store.setMessageTs(request.id, '1700000000.000100');
      expect(await store.get(request.id)).toStrictEqual({ ...request, messageTs: '1700000000.000100' });
    });

    it('does nothing for an unknown id', async () => {
      const { store } = openHarness();
      await store.setMessageTs('no-such-change', '1700000000.000100');
      expect(await store.get('no-such-change')).toBeUndefined();
    });
  });

  describe('transition', () => {
    it('moves pending -> applying -> applied, recording who decided, when, and the outcome', async () => {
      const { store } = openHarness();
      const request = await created(store);
      const approvedAt = Date.now();

      const approved = await store.transition(request.id, approve('U-approver', approvedAt));
      expect(approved).toStrictEqual({
        ok: true,
        request: { ...request, status: 'applying', decidedBy: 'U-approver', decidedAt: approvedAt },
      });

      const applied = await store.transition(request.id, markApplied('U-approver', approvedAt + 500));
      const expected = {
        ...request,
        status: 'applied',
        decidedBy: 'U-approver',
        decidedAt: approvedAt,
        outcome: { apiRequestId: 'req-42', status: 200 },
      };
      expect(applied).toStrictEqual({ ok: true, request: expected });
      expect(await store.get(request.id)).toStrictEqual(expected);
    });

    it('reports a conflict with the current request when it is already applying', async () => {
      const { store } = openHarness();
      const request = await created(store);
      await store.transition(request.id, approve('U-first'));
      const second = await store.transition(request.id, approve('U-second'));
      expect(second).toMatchObject({
        ok: false,
        reason: 'conflict',
        request: { status: 'applying', decidedBy: 'U-first' },
      });
    });

    it('reports a conflict when it is already applied', async () => {
      const { store } = openHarness();
      const request = await created(store);
      await store.transition(request.id, approve());
      await store.transition(request.id, markApplied());
      const cancel: Transition = {
        from: ['pending', 'applying'],
        to: 'cancelled',
        actorId: 'U-requester',
        now: Date.now(),
        audit: { action: 'cancelled', summary: 'Name: analytics -> analytics-2' },
      };
      expect(await store.transition(request.id, cancel)).toMatchObject({
        ok: false,
        reason: 'conflict',
        request: { status: 'applied' },
      });
      expect(await store.transition(request.id, markApplied())).toMatchObject({ ok: false, reason: 'conflict' });
    });

    it('marks a pending request past its expiry as expired instead', async () => {
      const { store } = openHarness();
      const request = buildExpiredRequest();
      await store.create(request);

      const result = await store.transition(request.id, approve());
      expect(result).toStrictEqual({ ok: false, reason: 'expired', request: { ...request, status: 'expired' } });
      expect((await store.get(request.id))?.status).toBe('expired');
      // Once expired it is simply no longer pending.
      expect(await store.transition(request.id, approve())).toMatchObject({ ok: false, reason: 'conflict' });
    });

    it('expires at exactly expiresAt', async () => {
      const { store } = openHarness();
      const request = await created(store);
      const result = await store.transition(request.id, approve('U-approver', request.expiresAt));
      expect(result).toMatchObject({ ok: false, reason: 'expired' });
    });

    it('lets a transition to expired through as an ordinary decision', async () => {
      const { store } = openHarness();
      const request = buildExpiredRequest();
      await store.create(request);
      const now = Date.now();
      const sweep: Transition = {
        from: ['pending'],
        to: 'expired',
        actorId: 'U-bot',
        now,
        audit: { action: 'expired', summary: 's' },
      };
      expect(await store.transition(request.id, sweep)).toStrictEqual({
        ok: true,
        request: { ...request, status: 'expired', decidedBy: 'U-bot', decidedAt: now },
      });
    });

    it('reports a missing request', async () => {
      const { store } = openHarness();
      expect(await store.transition('no-such-change', approve())).toStrictEqual({ ok: false, reason: 'missing' });
    });

    it('lets exactly one of 200 concurrent approvals win', async () => {
      const { store, sibling } = openHarness();
      const request = await created(store);
      const attempts = Array.from({ length: 200 }, (_, i) =>
        (i % 2 === 0 ? store : sibling).transition(request.id, approve(`U-${i}`)),
      );
      const results = await Promise.all(attempts);
      const winners = results.filter((result) => result.ok);
      expect(winners).toHaveLength(1);
      expect(results.filter((result) => !result.ok && result.reason === 'conflict')).toHaveLength(199);
      const audit = await store.readAudit({ limit: 1000 });
      expect(audit.filter((entry) => entry.action === 'approved')).toHaveLength(1);
    });
  });

  describe('listPending', () => {
    it('lists the channel pending requests that have not expired, oldest first', async () => {
      const { store } = openHarness();
      const now = Date.now();
      const newest = await created(store, { createdAt: now - 1_000 });
      const oldest = await created(store, { createdAt: now - 60_000, expiresAt: now + 10 * 60_000 });
      const middle = await created(store, { createdAt: now - 30_000, expiresAt: now + 2 * HOUR_MS });
      await created(store, { channelId: 'C-elsewhere' });
      const decided = await created(store);
      await store.transition(decided.id, approve());
      const expired = buildExpiredRequest();
      await store.create(expired);

      const pending = await store.listPending('C-ops', now);
      expect(pending.map((r) => r.id)).toStrictEqual([oldest.id, middle.id, newest.id]);
      expect(pending[0]).toStrictEqual(oldest);
    });

    it('leaves out requests whose expiry is at or before now', async () => {
      const { store } = openHarness();
      const request = await created(store);
      expect(await store.listPending('C-ops', request.expiresAt - 1)).toHaveLength(1);
      expect(await store.listPending('C-ops', request.expiresAt)).toHaveLength(0);
    });

    it('is empty for a channel without requests', async () => {
      const { store } = openHarness();
      expect(await store.listPending('C-quiet', Date.now())).toStrictEqual([]);
    });
  });

  describe('countPending', () => {
    it('counts pending requests of every channel, not those decided or past their expiry', async () => {
      const { store, sibling } = openHarness();
      const now = Date.now();
      await created(store);
      await created(store, { channelId: 'C-elsewhere' });
      const approved = await created(store, { channelId: 'C-third' });
      const rejected = await created(store);
      const expiring = await created(store, { expiresAt: now + 1_000 });
      expect(await sibling.countPending(now)).toBe(5);

      await store.transition(approved.id, approve());
      await store.transition(rejected.id, {
        ...approve(),
        to: 'rejected',
        audit: { action: 'rejected', summary: 'x' },
      });
      expect(await sibling.countPending(now)).toBe(3);
      // Past its expiry it is no longer pending, clicked or not.
      expect(await sibling.countPending(now + 2_000)).toBe(2);
      await store.transition(expiring.id, approve('U-late', now + 2_000));
      expect(await sibling.countPending(now)).toBe(2);
    });
  });

  describe('listApplying', () => {
    it('lists requests in applying across channels, and forgets them once they finish', async () => {
      const { store } = openHarness();
      const first = await created(store, { createdAt: Date.now() - 5_000 });
      const second = await created(store, { channelId: 'C-elsewhere' });
      await created(store);
      await store.transition(second.id, approve());
      await store.transition(first.id, approve());

      expect((await store.listApplying()).map((r) => r.id)).toStrictEqual([first.id, second.id]);
      await store.transition(first.id, markApplied());
      expect((await store.listApplying()).map((r) => r.id)).toStrictEqual([second.id]);
    });
  });

  describe('audit', () => {
    it('writes a "requested" entry on create', async () => {
      const { store } = openHarness();
      const request = await created(store);
      expect(await store.readAudit({ limit: 10 })).toStrictEqual([
        {
          id: anyString(),
          at: request.createdAt,
          action: 'requested',
          changeId: request.id,
          actorId: 'U-requester',
          channelId: 'C-ops',
          serviceId: 'svc-1',
          serviceName: 'analytics',
          summary: 'Name: analytics → analytics-2; IP access: - → +1.2.3.4/32',
        },
      ]);
    });

    it('writes an entry for every transition, newest first', async () => {
      const { store } = openHarness();
      const request = await created(store);
      const approvedAt = Date.now();
      await store.transition(request.id, approve('U-approver', approvedAt));
      await store.transition(request.id, markApplied('U-approver', approvedAt + 1));
      await store.transition(request.id, markApplied('U-approver', approvedAt + 2)); // conflict: no entry

      const entries = await store.readAudit({ limit: 10 });
      expect(entries.map((e) => e.action)).toStrictEqual(['applied', 'approved', 'requested']);
      expect(entries[0]).toStrictEqual({
        id: anyString(),
        at: approvedAt + 1,
        action: 'applied',
        changeId: request.id,
        actorId: 'U-approver',
        channelId: 'C-ops',
        serviceId: 'svc-1',
        serviceName: 'analytics',
        summary: 'Name: analytics -> analytics-2',
        apiRequestId: 'req-42',
        // The exact PATCH body, for drift attribution.
        update: request.plan.update,
      });
      expect(new Set(entries.map((e) => e.id)).size).toBe(3);
      expect((await store.readApplied({ from: approvedAt, to: approvedAt + 1 })).map((e) => e.action)).toStrictEqual([
        'applied',
      ]);
      expect(await store.readApplied({ from: approvedAt + 2, to: approvedAt + 9 })).toStrictEqual([]);
    });

    it("keeps a channel's and a service's entries whatever is recorded elsewhere, and never shows one channel's in another", async () => {
      const { store } = openHarness();
      const mine = await created(store);
      // Noise: many requests in another channel, on the same and on another service.
      for (let i = 0; i < 30; i += 1) {
        await store.create(buildChangeRequest({ id: `CR-NOISE${String(i).padStart(5, '0')}`, channelId: 'C-public' }));
      }
      const inMine = await store.readAudit({ channelId: 'C-ops', limit: 5 });
      expect(inMine.map((e) => e.changeId)).toStrictEqual([mine.id]);
      expect(
        (await store.readAudit({ channelId: 'C-ops', serviceId: 'svc-1', limit: 5 })).map((e) => e.changeId),
      ).toStrictEqual([mine.id]);
      expect(await store.readAudit({ channelId: 'C-ops', serviceId: 'svc-other', limit: 5 })).toStrictEqual([]);
      expect(
        (await store.readAudit({ channelId: 'C-public', limit: 100 })).every((e) => e.channelId === 'C-public'),
      ).toBe(true);
      expect(await store.auditBeginsAt()).toBe(mine.createdAt);
    });

    /**
     * Entries written before the retention passes, one written in the middle (which keeps the Redis
     * streams from expiring whole, as a busy channel's do) and one after; returns the last two.
     */
    async function acrossTheRetention(store: ChangeStore, expiredCount: number) {
      for (let i = 0; i < expiredCount; i += 1) await created(store, { id: `CR-OLD${String(i).padStart(5, '0')}` });
      // Wall-clock time must pass: Redis stream ids are the server's clock.
      await sleep(AUDIT_RETENTION_MS * 0.6);
      const middle = await created(store, { id: 'CR-MID0000001' });
      await sleep(AUDIT_RETENTION_MS * 0.45);
      const latest = await created(store, { id: 'CR-NEW0000001' });
      return [latest, middle];
    }

    it('never shows an entry older than the audit retention, even one Redis has not trimmed yet', async () => {
      const { store } = openHarness({ auditRetentionDays: AUDIT_RETENTION_MS / DAY_MS });
      // So few that Redis's approximate trimming (whole stream nodes) keeps them next to the new ones.
      const kept = (await acrossTheRetention(store, 3)).map((r) => r.id);
      const everyRead = [
        await store.readAudit({ limit: 500 }),
        await store.readAudit({ channelId: 'C-ops', limit: 500 }),
        await store.readAudit({ channelId: 'C-ops', serviceId: 'svc-1', limit: 500 }),
        await store.readAudit({ serviceId: 'svc-1', limit: 500 }),
      ];
      for (const entries of everyRead) expect(entries.map((e) => e.changeId)).toStrictEqual(kept);
      expect(await store.auditBeginsAt()).toBe((await store.get('CR-MID0000001'))?.createdAt);
    });

    it('lets expired audit entries go from storage', async () => {
      const { store, auditSize } = openHarness({ auditRetentionDays: AUDIT_RETENTION_MS / DAY_MS });
      // More than one full Redis stream node (at most 100 entries), so there is a whole node to drop.
      await acrossTheRetention(store, 120);
      // Redis trims whole stream nodes (`MINID ~`): at most one node of expired entries may stay.
      expect(await auditSize()).toBeLessThanOrEqual(2 + 100);
    });

    it('writes the automatic "expired" entry', async () => {
      const { store } = openHarness();
      const request = buildExpiredRequest();
      await store.create(request);
      const now = Date.now();
      await store.transition(request.id, approve('U-late', now));
      const [latest] = await store.readAudit({ limit: 1 });
      expect(latest).toStrictEqual({
        id: anyString(),
        at: now,
        action: 'expired',
        changeId: request.id,
        actorId: 'U-late',
        channelId: 'C-ops',
        serviceId: 'svc-1',
        serviceName: 'analytics',
        summary: 'Name: analytics -> analytics-2',
        message: EXPIRED_BEFORE_DECISION,
      });
    });

    it('filters by service and stops at the limit', async () => {
      const { store } = openHarness();
      const forOther = buildPlan({ serviceId: 'svc-2', serviceName: 'billing' });
      const first = await created(store);
      await created(store, { plan: forOther });
      const third = await created(store);
      const fourth = await created(store, { plan: forOther });

      const onService = await store.readAudit({ serviceId: 'svc-1', limit: 10 });
      expect(onService.map((e) => e.changeId)).toStrictEqual([third.id, first.id]);
      expect((await store.readAudit({ serviceId: 'svc-1', limit: 1 })).map((e) => e.changeId)).toStrictEqual([
        third.id,
      ]);
      expect(await store.readAudit({ limit: 3 })).toHaveLength(3);
      expect((await store.readAudit({ serviceId: 'svc-2', limit: 1 })).map((e) => e.changeId)).toStrictEqual([
        fourth.id,
      ]);
      expect(await store.readAudit({ serviceId: 'svc-none', limit: 10 })).toStrictEqual([]);
      expect(await store.readAudit({ limit: 0 })).toStrictEqual([]);
    });

    it('finds matching entries beyond the first page of a filtered scan', async () => {
      const { store } = openHarness();
      const wanted = await created(store, { plan: buildPlan({ serviceId: 'svc-rare' }) });
      for (let i = 0; i < 600; i++) await created(store);
      const found = await store.readAudit({ serviceId: 'svc-rare', limit: 5 });
      expect(found.map((e) => e.changeId)).toStrictEqual([wanted.id]);
    });
  });

  describe('scheduled changes', () => {
    const approval = (userId: string, at: number, applyAt: number) => ({
      approval: { userId, at, counts: [0] },
      audit: { summary: 'Name: analytics -> analytics-2' },
      schedule: { at: applyAt },
    });
    const toScheduled = (at: number): Transition => ({
      from: ['pending'],
      to: 'scheduled',
      actorId: 'U-requester',
      now: at,
      audit: { action: 'approved', summary: 'Name: analytics -> analytics-2' },
    });
    const start = (at: number): Transition => ({
      from: ['scheduled'],
      to: 'applying',
      actorId: 'the bot',
      now: at,
      claim: { owner: 'replica-a', ttlMs: 20_000 },
      audit: { action: 'approved', summary: 'Name: analytics -> analytics-2' },
    });

    it('the approval that completes a scheduled request moves it to scheduled, indexed by its time, without a lease', async () => {
      const { store, sibling } = openHarness();
      const at = Date.now();
      const request = await created(store, { applyAt: at + 60_000, expiresAt: at + 60_000 });
      const result = await store.addApproval(request.id, approval('U-approver', at, at + 60_000));
      expect(result).toMatchObject({
        ok: true,
        complete: true,
        request: { status: 'scheduled', decidedBy: 'U-approver' },
      });
      const stored = await sibling.get(request.id);
      expect(stored).toMatchObject({ status: 'scheduled', applyAt: at + 60_000 });
      expect(stored?.lease).toBeUndefined();
      expect(await store.listApplying()).toStrictEqual([]);
      expect(await store.dueScheduled(at + 59_999, 10)).toStrictEqual([]);
      expect(await sibling.dueScheduled(at + 60_000, 10)).toStrictEqual([request.id]);
      // `pending` lists it until its time; the pending gauge and the reminders do not count it.
      expect((await store.listPending('C-ops', at)).map((r) => r.id)).toStrictEqual([request.id]);
      expect(await store.countPending(at)).toBe(0);
      expect(await store.listOpen(at, 10)).toStrictEqual([]);
    });

    it('exactly one of two replicas starts it; starting it, cancelling it or expiring it takes it out of the index', async () => {
      const { store, sibling } = openHarness();
      const at = Date.now();
      const ids: string[] = [];
      for (const _ of [1, 2, 3]) {
        const request = await created(store, { applyAt: at + 1_000, expiresAt: at + 1_000 });
        expect(await store.transition(request.id, toScheduled(at))).toMatchObject({ ok: true });
        ids.push(request.id);
      }
      const [started = '', cancelled = '', expired = ''] = ids;
      expect(new Set(await store.dueScheduled(at + 1_000, 10))).toStrictEqual(new Set(ids));
      const races = await Promise.all([
        store.transition(started, start(at + 1_000)),
        sibling.transition(started, start(at + 1_000)),
      ]);
      expect(races.map((r) => r.ok).sort()).toStrictEqual([false, true]);
      expect(await store.get(started)).toMatchObject({
        status: 'applying',
        decidedBy: 'U-requester',
        lease: { owner: 'replica-a' },
      });
      const cancel: Transition = {
        ...toScheduled(at),
        from: ['scheduled'],
        to: 'cancelled',
        audit: { action: 'cancelled', summary: 's' },
      };
      expect(await store.transition(cancelled, cancel)).toMatchObject({ ok: true, request: { status: 'cancelled' } });
      const expire: Transition = { ...start(at + 1_000), to: 'expired', audit: { action: 'expired', summary: 's' } };
      delete expire.claim;
      expect(await store.transition(expired, expire)).toMatchObject({
        ok: true,
        request: { status: 'expired', decidedBy: 'the bot' },
      });
      expect(await store.dueScheduled(at + 1_000, 10)).toStrictEqual([]);
    });

    it('an approval that schedules a request made without a time (its window closed) gives it that time', async () => {
      const { store, sibling } = openHarness();
      const at = Date.now();
      const request = await created(store, { expiresAt: at + 3_600_000 });
      await store.addApproval(request.id, approval('U-approver', at, at + 86_400_000));
      expect(await sibling.get(request.id)).toMatchObject({ status: 'scheduled', applyAt: at + 86_400_000 });
      expect(await sibling.dueScheduled(at + 86_400_000, 10)).toStrictEqual([request.id]);
    });
  });

  describe('temporary changes', () => {
    const terms = { durationMs: 60_000, remindAfterMs: 30_000 };
    async function applied(store: ChangeStore, overrides: Partial<ChangeRequest>, at: number): Promise<ChangeRequest> {
      const request = await created(store, overrides);
      await store.transition(request.id, approve('U-approver', at));
      await store.transition(request.id, markApplied('U-approver', at));
      return request;
    }

    it('schedules the revert and reminder of a temporary request when it is applied, not before', async () => {
      const { store, sibling } = openHarness();
      const at = Date.now();
      const pending = await created(store, { temporary: terms });
      await store.transition(pending.id, approve('U-approver', at));
      expect(await store.scheduledReverts()).toStrictEqual([]);
      expect(await store.revertDueAt(pending.id)).toBeUndefined();
      await store.transition(pending.id, markApplied('U-approver', at));
      expect(await sibling.scheduledReverts()).toStrictEqual([{ id: pending.id, dueAt: at + 60_000 }]);
      expect(await sibling.revertDueAt(pending.id)).toBe(at + 60_000);
      expect(await sibling.get(pending.id)).toMatchObject({ temporary: terms });
      expect(await store.dueReverts(at + 59_999, 10)).toStrictEqual([]);
      expect(await store.dueReverts(at + 60_000, 10)).toStrictEqual([pending.id]);
      expect(await store.dueReminders(at + 30_000, 10)).toStrictEqual([pending.id]);
      await applied(store, {}, at);
      expect(await store.scheduledReverts()).toHaveLength(1);
    });

    it('hands out due reverts page after page, so reverts that keep failing cannot hide the others', async () => {
      const { store } = openHarness();
      const at = Date.now() - 120_000;
      const ids: string[] = [];
      for (let i = 0; i < 25; i++) ids.push((await applied(store, { temporary: terms }, at + i)).id);
      // Nothing is reverted (every revert fails and stays due): two looks still reach all 25.
      const first = await store.dueReverts(Date.now(), 20);
      expect(first).toStrictEqual(ids.slice(0, 20));
      const second = await store.dueReverts(Date.now(), 20);
      expect(second).toHaveLength(20);
      expect(new Set([...first, ...second])).toStrictEqual(new Set(ids));
      // Fewer due than a page: every look returns all of them.
      await Promise.all(ids.slice(3).map((id) => store.forgetRevert(id)));
      expect(new Set(await store.dueReverts(Date.now(), 20))).toStrictEqual(new Set(ids.slice(0, 3)));
      expect(new Set(await store.dueReverts(Date.now(), 20))).toStrictEqual(new Set(ids.slice(0, 3)));
    });

    it('hands a reminder to exactly one of many claimers', async () => {
      const { store, sibling } = openHarness();
      const request = await applied(store, { temporary: terms }, Date.now());
      const claims = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? store : sibling).claimReminder(request.id)),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await store.scheduledReverts()).toHaveLength(1);
    });

    it('moves a revert still due when an extension is applied, and not one already forgotten', async () => {
      const { store } = openHarness();
      const at = Date.now();
      const original = await applied(store, { temporary: terms }, at);
      await applied(store, { temporary: terms, extendOf: original.id, threadTs: '1.2' }, at + 40_000);
      // By its duration from the planned time (at + 60 s), not from its approval (issue 35, point 6).
      expect(await store.scheduledReverts()).toStrictEqual([{ id: original.id, dueAt: at + 120_000 }]);
      await store.forgetRevert(original.id);
      await applied(store, { temporary: terms, extendOf: original.id }, at + 50_000);
      expect(await store.scheduledReverts()).toStrictEqual([]);
      expect(await store.dueReminders(at + 1_000_000, 10)).toStrictEqual([]);
    });

    /** The one scheduled revert is `id`'s, tried next at `dueAt`, overdue since `overdueSince`. */
    async function expectOverdue(reader: ChangeStore, id: string, dueAt: number, overdueSince: number) {
      expect(await reader.scheduledReverts()).toStrictEqual([{ id, dueAt, overdueSince }]);
    }

    it.each([
      ['at its time', 60_000],
      ['when asked before its time (Revert now)', 10_000],
    ])('notes a revert that fails %s as overdue since then, across replicas and retries', async (_, failsAfter) => {
      const { store, sibling } = openHarness();
      const at = Date.now();
      const original = await applied(store, { temporary: terms }, at);
      const failed = at + failsAfter;
      await store.postponeRevert(original.id, failed + 5_000, failed);
      await expectOverdue(sibling, original.id, failed + 5_000, failed);
      // Failing again (on the other replica): still overdue since the first failure, not the last try.
      await sibling.postponeRevert(original.id, failed + 20_000, failed + 5_000);
      await expectOverdue(store, original.id, failed + 20_000, failed);
      expect(await store.revertDueAt(original.id)).toBe(failed + 20_000);
    });

    it('forgets that a revert is overdue once it is scheduled anew or forgotten', async () => {
      const { store, sibling } = openHarness();
      const at = Date.now();
      const original = await applied(store, { temporary: terms }, at);
      await store.postponeRevert(original.id, at + 65_000, at + 60_000);
      // An extension applied schedules it anew: no longer overdue, and a later failure counts from it.
      await applied(store, { temporary: terms, extendOf: original.id, threadTs: '1.2' }, at + 70_000);
      expect(await store.scheduledReverts()).toStrictEqual([{ id: original.id, dueAt: at + 130_000 }]);
      await store.postponeRevert(original.id, at + 131_000, at + 130_000);
      await expectOverdue(store, original.id, at + 131_000, at + 130_000);
      await store.forgetRevert(original.id);
      expect(await store.scheduledReverts()).toStrictEqual([]);
      // A revert not scheduled (done, forgotten) is not scheduled by a late postponement either.
      await sibling.postponeRevert(original.id, at + 200_000, at + 195_000);
      expect(await store.scheduledReverts()).toStrictEqual([]);
    });

    it('creates a revert only if absent, once among concurrent creators', async () => {
      const { store, sibling } = openHarness();
      const revert = buildChangeRequest({ id: 'CR-0000000001-R', revertOf: 'CR-0000000001', threadTs: '1.2' });
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 ? store : sibling).createIfAbsent({ ...revert, requesterId: `U${i}` }),
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await store.get(revert.id)).toMatchObject({ revertOf: 'CR-0000000001', threadTs: '1.2' });
      expect((await store.readAudit({ limit: 10 })).filter((e) => e.action === 'requested')).toHaveLength(1);
    });
  });

  it('answers ping', async () => {
    const { store } = openHarness();
    expect(await store.ping()).toBe(true);
  });
}
