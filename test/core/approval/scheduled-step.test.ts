/**
 * Scheduled changes in the decision function, table by table: an approval before the request's
 * time settles it in "scheduled" (no lease, nothing sent), its time starts it through the store's
 * claim, a bot that noticed too late expires it, and only its requester's Cancel still applies.
 */
import { describe, expect, it } from 'vitest';
import { step } from './checked-step.js';
import type { Effect, FlowContext, FlowEvent, FlowState } from '../../../src/core/approval/types.js';
import type { ChangeRequest } from '../../../src/core/change/types.js';
import { service } from '../fixtures.js';
import { CONTEXT, pendingRequest } from './world.js';

const APPLY_AT = 60_000;
const GRACE = 15 * 60_000;
const at = (now: number): FlowContext => ({ ...CONTEXT, now });
const types = (effects: Effect[]) => effects.map((e) => e.type);

const timed = (changes: Partial<ChangeRequest> = {}): ChangeRequest => ({
  ...pendingRequest(),
  applyAt: APPLY_AT,
  expiresAt: APPLY_AT,
  ...changes,
});
const scheduled = (changes: Partial<ChangeRequest> = {}) =>
  timed({ status: 'scheduled', decidedBy: 'U1', decidedAt: 500, ...changes });
const idle = (request: ChangeRequest | undefined): FlowState => ({ request, work: { phase: 'idle' } });
const due: FlowEvent = { type: 'schedule-due', actorId: 'the bot', graceMs: GRACE };

function run(state: FlowState, context: FlowContext, ...events: FlowEvent[]) {
  let current: { state: FlowState; effects: Effect[]; ignored?: string } = { state, effects: [] };
  for (const event of events) current = step(current.state, event, context);
  return current;
}

describe('step: a scheduled request is approved now and applied at its time', () => {
  it('the last approval before its time asks the store to schedule it, not to claim it', () => {
    const result = run(
      idle(timed()),
      at(1_000),
      { type: 'clicked', decision: 'approve', userId: 'U1' },
      {
        type: 'policy-answered',
        verdict: { allowed: true },
      },
    );
    expect(result.effects).toEqual([
      { type: 'add-approval', approverId: 'U1', at: 1_000, counts: [0], scheduleAt: APPLY_AT },
    ]);
  });

  it('approved once its time has come, it applies at once like any request', () => {
    const result = run(
      idle(timed()),
      at(APPLY_AT),
      { type: 'clicked', decision: 'approve', userId: 'U1' },
      {
        type: 'policy-answered',
        verdict: { allowed: true },
      },
    );
    expect(result.effects).toEqual([{ type: 'add-approval', approverId: 'U1', at: APPLY_AT, counts: [0] }]);
  });

  it('recorded as scheduled: shows it, tells the requester it was approved, tells the approver when it applies; holds nothing', () => {
    const state: FlowState = { request: timed(), work: { phase: 'deciding', decision: 'approve', userId: 'U1' } };
    const result = step(
      state,
      { type: 'approval-recorded', result: { ok: true, complete: true, request: scheduled() } },
      at(1_000),
    );
    expect(types(result.effects)).toEqual(['show', 'tell-requester', 'reply']);
    expect(result.effects.at(-1)).toEqual({ type: 'reply', reply: { kind: 'scheduled', request: scheduled() } });
    expect(result.state.work).toEqual({ phase: 'done' });
  });

  it('needing no approval, it moves to scheduled (one transition) and waits', () => {
    const result = run(idle(timed()), at(1_000), { type: 'apply-unreviewed', actorId: 'U-REQ', autoRules: ['dev'] });
    expect(result.effects).toEqual([
      {
        type: 'transition',
        from: ['pending'],
        to: 'scheduled',
        actorId: 'U-REQ',
        audit: 'approved',
        note: { kind: 'auto-approved', rules: ['dev'] },
      },
    ]);
    const recorded = step(
      result.state,
      { type: 'transitioned', result: { ok: true, request: scheduled() } },
      at(1_000),
    );
    expect(types(recorded.effects)).toEqual(['show']);
  });

  it('at its time: claimed through the store (scheduled -> applying with a lease), then applied as an approval is', () => {
    const result = run(idle(scheduled()), at(APPLY_AT), due);
    expect(result.effects).toEqual([
      {
        type: 'transition',
        from: ['scheduled'],
        to: 'applying',
        actorId: 'the bot',
        audit: 'approved',
        claim: true,
        note: { kind: 'schedule-started' },
      },
    ]);
    const claimed = {
      ...scheduled(),
      status: 'applying' as const,
      lease: { owner: 'A', fence: 1, until: 9e9, sending: false },
    };
    const started = step(result.state, { type: 'transitioned', result: { ok: true, request: claimed } }, at(APPLY_AT));
    expect(types(started.effects)).toEqual(['hold-lease', 'show', 'lock-service']);
    // The approver stays the one who applies it (audit, messages).
    expect(started.state.work).toMatchObject({ phase: 'locking', actorId: 'U1', mode: 'apply' });
  });

  it('at its time, the service moved since: refused as stale, naming what changed', () => {
    const claimed = {
      ...scheduled(),
      status: 'applying' as const,
      lease: { owner: 'A', fence: 1, until: 9e9, sending: false },
    };
    const result = run(
      idle(scheduled()),
      at(APPLY_AT),
      due,
      { type: 'transitioned', result: { ok: true, request: claimed } },
      { type: 'lock-answered', attempt: 'acquired', leaseLost: false },
      { type: 'service-read', service: service({ name: 'renamed-meanwhile' }) },
    );
    expect(result.effects).toHaveLength(1);
    expect(result.effects[0]).toMatchObject({
      type: 'transition',
      to: 'failed',
      audit: 'stale',
      outcome: { failure: { kind: 'stale', labels: ['Name'] } },
    });
  });

  it('another replica claimed it first: this one stops without a word to anyone', () => {
    const lost = run(idle(scheduled()), at(APPLY_AT), due, {
      type: 'transitioned',
      result: { ok: false, reason: 'conflict', request: { ...scheduled(), status: 'applying' } },
    });
    expect(types(lost.effects).filter((t) => t !== 'reply')).toEqual([]);
    expect(lost.state.work).toEqual({ phase: 'done' });
  });

  it('within the grace after its time (the bot was down a while) it still applies; later it expires, saying why', () => {
    expect(run(idle(scheduled()), at(APPLY_AT + GRACE), due).effects[0]).toMatchObject({ to: 'applying' });
    const late = run(idle(scheduled()), at(APPLY_AT + GRACE + 1), due);
    expect(late.effects).toEqual([
      {
        type: 'transition',
        from: ['scheduled'],
        to: 'expired',
        actorId: 'the bot',
        audit: 'expired',
        note: { kind: 'schedule-missed', dueAt: APPLY_AT, graceMs: GRACE },
      },
    ]);
    const expired = { ...scheduled(), status: 'expired' as const };
    const told = step(
      late.state,
      { type: 'transitioned', result: { ok: true, request: expired } },
      at(APPLY_AT + GRACE + 1),
    );
    expect(types(told.effects)).toEqual(['show', 'tell-requester']);
  });

  it('lateness is judged from when the tick noticed it: one worked on later in the same tick still applies', () => {
    // Noticed right at its time, reached two grace periods later (the tick was applying others).
    const noticed: FlowEvent = { ...due, noticedAt: APPLY_AT };
    expect(run(idle(scheduled()), at(APPLY_AT + 2 * GRACE), noticed).effects[0]).toMatchObject({ to: 'applying' });
    // Noticed late (the bot was down): expired, whenever it is reached.
    const missed: FlowEvent = { ...due, noticedAt: APPLY_AT + GRACE + 1 };
    expect(run(idle(scheduled()), at(APPLY_AT + GRACE + 1), missed).effects[0]).toMatchObject({ to: 'expired' });
  });

  it('schedule-due that does not apply leaves the state as it was, with a reason', () => {
    const cases: Array<[string, FlowState, number]> = [
      ['not yet due', idle(scheduled()), APPLY_AT - 1],
      ['still pending', idle(timed()), APPLY_AT],
      ['already applying', idle({ ...scheduled(), status: 'applying' }), APPLY_AT],
      ['mid-run', { request: scheduled(), work: { phase: 'expiring' } }, APPLY_AT],
      ['gone', idle(undefined), APPLY_AT],
    ];
    for (const [why, state, now] of cases) {
      const result = step(state, due, at(now));
      expect(result, why).toMatchObject({ state, effects: [] });
      expect('ignored' in result && result.ignored.length > 0, why).toBe(true);
    }
  });

  it('its requester may cancel it until it starts; Approve or Reject on it changes nothing', () => {
    const cancel = run(
      idle(scheduled()),
      at(2_000),
      { type: 'clicked', decision: 'cancel', userId: 'U-REQ' },
      {
        type: 'policy-answered',
        verdict: { allowed: true },
      },
    );
    expect(cancel.effects).toEqual([
      { type: 'transition', from: ['scheduled'], to: 'cancelled', actorId: 'U-REQ', audit: 'cancelled' },
    ]);
    for (const decision of ['approve', 'reject'] as const) {
      const click = run(idle(scheduled()), at(2_000), { type: 'clicked', decision, userId: 'U2' });
      expect(click.effects).toEqual([{ type: 'reply', reply: { kind: 'already-decided', request: scheduled() } }]);
    }
    const started = run(idle({ ...scheduled(), status: 'applying' }), at(APPLY_AT), {
      type: 'clicked',
      decision: 'cancel',
      userId: 'U-REQ',
    });
    expect(types(started.effects)).toEqual(['reply']);
  });
});
