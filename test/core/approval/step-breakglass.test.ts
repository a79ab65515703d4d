/** The decision function on break-glass, its review, and freezes at apply time (reverts exempt). */
import { describe, expect, it } from 'vitest';
import { step } from './checked-step.js';
import type { Effect, FlowEvent, FlowState } from '../../../src/core/approval/types.js';
import type { ChangeRequest } from '../../../src/core/change/types.js';
import type { PolicyDecision, Requirement } from '../../../src/core/policy/types.js';
import { service } from '../fixtures.js';
import { CONTEXT, pendingRequest } from './world.js';

const FROZEN: Requirement = {
  rule: 'production',
  approvals: 1,
  approvers: [],
  reasons: ['env=prod'],
  freezes: [{ from: '1970-01-01', to: '1970-01-02', reason: 'Year-end freeze' }],
};
const LEASE = { owner: 'A', fence: 1, until: 99_999, sending: false };
const reading = (request: ChangeRequest): FlowState => ({
  request: { ...request, status: 'applying', decidedBy: 'U1', lease: LEASE },
  work: { phase: 'reading', actorId: 'U1', mode: 'apply', attempt: 0 },
});
/** The fresh read under the lock, then the rules judged on it (the request's own unless given). */
const readThenJudged = (request: ChangeRequest, rules?: PolicyDecision): Effect[] => {
  const state = reading(request);
  const read = step(state, { type: 'service-read', service: service() }, CONTEXT);
  if (read.effects[0]?.type !== 'judge-rules') return read.effects;
  const asked: PolicyDecision = { kind: 'approve', requirements: state.request?.requirements ?? [] };
  return step(read.state, { type: 'rules-judged', rules: rules ?? asked }, CONTEXT).effects;
};
const recorded = (effects: Effect[]) => effects.find((e) => e.type === 'transition');

describe('break-glass', () => {
  it('claims a pending break-glass request for applying, audited as break-glass with its reason', () => {
    const request = { ...pendingRequest(), breakGlass: true as const, reason: 'INC-7' };
    const result = step({ request, work: { phase: 'idle' } }, { type: 'break-glass', actorId: 'U-REQ' }, CONTEXT);
    expect(result.effects).toEqual([
      expect.objectContaining({
        type: 'transition',
        from: ['pending'],
        to: 'applying',
        audit: 'break-glass',
        claim: true,
        note: { kind: 'break-glass', reason: 'INC-7' },
      }),
    ]);
  });

  it('is never used on a request that was not filed as break-glass', () => {
    const result = step(
      { request: pendingRequest(), work: { phase: 'idle' } },
      { type: 'break-glass', actorId: 'U1' },
      CONTEXT,
    );
    expect(result.effects).toMatchObject([{ type: 'reply', reply: { kind: 'already-decided' } }]);
  });

  it('skips approvals and freezes at apply time, but never a deny rule', () => {
    const request = { ...pendingRequest(), breakGlass: true as const, requirements: [FROZEN] };
    const grown: PolicyDecision = { kind: 'approve', requirements: [{ ...FROZEN, approvals: 3 }] };
    expect(readThenJudged(request, grown)).toEqual([expect.objectContaining({ type: 'send', index: 0 })]);
    const deny: PolicyDecision = { kind: 'deny', rule: 'never open prod', text: 'No.', reasons: [] };
    expect(recorded(readThenJudged(request, deny))).toMatchObject({
      to: 'failed',
      outcome: { failure: { kind: 'denied-now', rule: 'never open prod' } },
    });
  });
});

describe('recording a break-glass change', () => {
  const recording = (request: ChangeRequest, mode: 'apply' | 'settle', status: 'applied' | 'failed'): FlowState => ({
    request: { ...request, status: 'applying', decidedBy: 'U1', lease: LEASE },
    work: {
      phase: 'recording',
      actorId: 'U1',
      mode,
      outcome:
        status === 'applied'
          ? { status, audit: 'applied' }
          : { status, audit: 'failed', failure: { kind: 'service-gone' } },
    },
  });
  const stored = (request: ChangeRequest, status: 'applied' | 'failed'): FlowEvent => ({
    type: 'transitioned',
    result: { ok: true, request: { ...request, status } },
  });

  it.each(['apply', 'settle'] as const)('files its review once recorded applied (%s)', (mode) => {
    const request = { ...pendingRequest(), breakGlass: true as const };
    const { effects } = step(recording(request, mode, 'applied'), stored(request, 'applied'), CONTEXT);
    expect(effects).toContainEqual({ type: 'file-review', original: { ...request, status: 'applied' } });
  });

  it('files no review for a change that was not applied, nor for an ordinary change', () => {
    const request = { ...pendingRequest(), breakGlass: true as const };
    const failed = step(recording(request, 'apply', 'failed'), stored(request, 'failed'), CONTEXT);
    expect(failed.effects.map((e) => e.type)).not.toContain('file-review');
    const ordinary = step(
      recording(pendingRequest(), 'apply', 'applied'),
      stored(pendingRequest(), 'applied'),
      CONTEXT,
    );
    expect(ordinary.effects.map((e) => e.type)).not.toContain('file-review');
  });
});

describe('a freeze at apply time', () => {
  it('fails a change whose rule froze since it was asked, naming the freeze', () => {
    const request = { ...pendingRequest(), requirements: [FROZEN] };
    expect(recorded(readThenJudged(request))).toMatchObject({
      to: 'failed',
      outcome: { failure: { kind: 'frozen', rule: 'production', reason: 'Year-end freeze' } },
    });
  });

  it('fails a change approved after its window closed, saying when it next opens (never applied outside it)', () => {
    // CONTEXT.now is Thursday 1970-01-01 00:00:01 UTC: a Monday window is closed.
    const closed: Requirement = {
      ...FROZEN,
      freezes: undefined,
      window: { days: ['mon'], fromMinute: 540, toMinute: 960, tz: 'UTC' },
    };
    const request = { ...pendingRequest(), requirements: [closed] };
    expect(recorded(readThenJudged(request))).toMatchObject({
      to: 'failed',
      outcome: { failure: { kind: 'outside-window', rules: ['production'], opensAt: Date.UTC(1970, 0, 5, 9) } },
    });
    const breakGlass = { ...request, breakGlass: true as const };
    expect(readThenJudged(breakGlass)).toEqual([expect.objectContaining({ type: 'send', index: 0 })]);
  });

  it('schedules the last approval after its window closed for the next opening', () => {
    const closed: Requirement = {
      ...FROZEN,
      freezes: undefined,
      window: { days: ['mon'], fromMinute: 540, toMinute: 960, tz: 'UTC' },
    };
    const request = { ...pendingRequest(), requirements: [closed] };
    const result = step(
      { request, work: { phase: 'checking', decision: 'approve', userId: 'U1' } },
      { type: 'policy-answered', verdict: { allowed: true, counts: [0] } },
      CONTEXT,
    );
    expect(result.effects).toEqual([
      expect.objectContaining({ type: 'add-approval', scheduleAt: Date.UTC(1970, 0, 5, 9) }),
    ]);
    const open = {
      ...pendingRequest(),
      requirements: [{ ...closed, window: { ...closed.window!, days: ['thu' as const], fromMinute: 0 } }],
    };
    const now = step(
      { request: open, work: { phase: 'checking', decision: 'approve', userId: 'U1' } },
      { type: 'policy-answered', verdict: { allowed: true, counts: [0] } },
      CONTEXT,
    );
    expect(now.effects).toEqual([expect.not.objectContaining({ scheduleAt: expect.any(Number) as unknown })]);
  });

  it('never defers an extension approved after its window closed: it would come after its revert, so apply time refuses it instead', () => {
    const closed: Requirement = {
      ...FROZEN,
      freezes: undefined,
      window: { days: ['mon'], fromMinute: 540, toMinute: 960, tz: 'UTC' },
    };
    const extension = { ...pendingRequest(), requirements: [closed], extendOf: 'CR-GRANT' };
    const approved = step(
      { request: extension, work: { phase: 'checking', decision: 'approve', userId: 'U1' } },
      { type: 'policy-answered', verdict: { allowed: true, counts: [0] } },
      CONTEXT,
    );
    expect(approved.effects).toEqual([expect.not.objectContaining({ scheduleAt: expect.any(Number) as unknown })]);
    expect(recorded(readThenJudged(extension))).toMatchObject({
      to: 'failed',
      outcome: { failure: { kind: 'outside-window', opensAt: Date.UTC(1970, 0, 5, 9) } },
    });
  });

  it('never holds back a revert: returning to the previous state is always allowed', () => {
    const closed = { days: ['mon' as const], fromMinute: 540, toMinute: 960, tz: 'UTC' };
    const revert = { ...pendingRequest(), requirements: [{ ...FROZEN, window: closed }], revertOf: 'CR-ORIGINAL' };
    expect(readThenJudged(revert)).toEqual([expect.objectContaining({ type: 'send', index: 0 })]);
  });
});

describe('a break-glass review', () => {
  const review = (): ChangeRequest => ({
    ...pendingRequest([]),
    id: 'CR-WORLD-B',
    reviewOf: 'CR-WORLD',
    plan: { ...pendingRequest([]).plan, update: {}, operations: [], changes: [], before: {} },
  });

  it('is only marked reviewed: Reject and Cancel are answered, not checked', () => {
    for (const decision of ['reject', 'cancel'] as const) {
      const result = step(
        { request: review(), work: { phase: 'idle' } },
        { type: 'clicked', decision, userId: 'U1' },
        CONTEXT,
      );
      expect(result.effects).toEqual([{ type: 'reply', reply: { kind: 'review-only' } }]);
    }
    const approve = step(
      { request: review(), work: { phase: 'idle' } },
      { type: 'clicked', decision: 'approve', userId: 'U1' },
      CONTEXT,
    );
    expect(approve.effects).toEqual([{ type: 'check-policy', decision: 'approve', userId: 'U1' }]);
  });

  it('sends nothing once approved: recorded as reviewed, with no news for whoever broke the glass', () => {
    const effects = readThenJudged(review());
    expect(recorded(effects)).toMatchObject({ to: 'applied', audit: 'reviewed' });
    const done = step(
      {
        request: reading(review()).request,
        work: { phase: 'recording', actorId: 'U1', mode: 'apply', outcome: { status: 'applied', audit: 'reviewed' } },
      },
      { type: 'transitioned', result: { ok: true, request: { ...review(), status: 'applied' } } },
      CONTEXT,
    );
    expect(done.effects.map((e) => e.type)).not.toContain('tell-requester');
    expect(done.effects.map((e) => e.type)).not.toContain('post-result');
  });
});
