/**
 * The requester is told of their request's approval and of every ending as a typed effect
 * (tell-requester); the words are core/render/requester.ts's. Never of what they did themselves,
 * and a revert tells the original's requester only that it took the change back.
 */
import { describe, expect, it } from 'vitest';
import { step } from './checked-step.js';
import type { Effect, FlowEvent, FlowState, RequesterNews } from '../../../src/core/approval/types.js';
import type { ChangeRequest } from '../../../src/core/change/types.js';
import { requesterNewsMessage } from '../../../src/core/render/requester.js';
import { service } from '../fixtures.js';
import { CONTEXT, pendingRequest } from './world.js';

function run(state: FlowState, ...events: FlowEvent[]): { state: FlowState; effects: Effect[] } {
  let current = { state, effects: [] as Effect[] };
  for (const event of events) current = step(current.state, event, CONTEXT);
  return current;
}

const idle = (request: ChangeRequest = pendingRequest()): FlowState => ({ request, work: { phase: 'idle' } });
const news = (effects: Effect[]): RequesterNews[] =>
  effects.flatMap((e) => (e.type === 'tell-requester' ? [e.news] : []));
const claimed = (request = pendingRequest()): ChangeRequest => ({
  ...request,
  status: 'applying',
  decidedBy: 'U1',
  lease: { owner: 'A', fence: 1, until: 99_999, sending: false },
});

describe('tell-requester', () => {
  it('a reject with the reason typed in the form keeps it as the note, and tells the requester with it', () => {
    const checked = run(
      idle(),
      { type: 'clicked', decision: 'reject', userId: 'U1', reason: 'use the staging service' },
      { type: 'policy-answered', verdict: { allowed: true } },
    );
    expect(checked.effects).toEqual([
      {
        type: 'transition',
        from: ['pending'],
        to: 'rejected',
        actorId: 'U1',
        audit: 'rejected',
        note: { kind: 'rejected-because', reason: 'use the staging service' },
      },
    ]);
    const rejected = { ...pendingRequest(), status: 'rejected' as const };
    const done = run(checked.state, { type: 'transitioned', result: { ok: true, request: rejected } });
    expect(news(done.effects)).toEqual([{ kind: 'rejected', by: 'U1', reason: 'use the staging service' }]);
  });

  it('a cancel by the requester tells nobody; an approval that does not complete tells nobody', () => {
    const cancelled = run(
      idle(),
      { type: 'clicked', decision: 'cancel', userId: 'U-REQ' },
      { type: 'policy-answered', verdict: { allowed: true } },
      { type: 'transitioned', result: { ok: true, request: { ...pendingRequest(), status: 'cancelled' } } },
    );
    expect(news(cancelled.effects)).toEqual([]);
    const partial = run(
      idle(),
      { type: 'clicked', decision: 'approve', userId: 'U1' },
      { type: 'policy-answered', verdict: { allowed: true } },
      { type: 'approval-recorded', result: { ok: true, complete: false, request: pendingRequest() } },
    );
    expect(news(partial.effects)).toEqual([]);
  });

  it('the approval that completes it tells "approved", first; a self-approval does not', () => {
    const approve = (userId: string) =>
      run(
        idle(),
        { type: 'clicked', decision: 'approve', userId },
        { type: 'policy-answered', verdict: { allowed: true } },
        { type: 'approval-recorded', result: { ok: true, complete: true, request: claimed() } },
      );
    const started = approve('U1');
    expect(started.effects[0]).toEqual({
      type: 'tell-requester',
      request: claimed(),
      news: { kind: 'approved', by: 'U1' },
    });
    expect(news(approve('U-REQ').effects)).toEqual([]);
  });

  it('applied and failed are told once recorded; expired when the store marks it so', () => {
    const recording = (outcome: Extract<FlowState['work'], { phase: 'recording' }>['outcome']): FlowState => ({
      request: claimed(),
      work: { phase: 'recording', actorId: 'U1', mode: 'apply', outcome },
    });
    const applied = { ...claimed(), status: 'applied' as const };
    const ok = run(recording({ status: 'applied', audit: 'applied', service: service() }), {
      type: 'transitioned',
      result: { ok: true, request: applied },
    });
    expect(news(ok.effects)).toEqual([{ kind: 'applied' }]);
    const failed = { ...claimed(), status: 'failed' as const };
    const notOk = run(recording({ status: 'failed', audit: 'failed', failure: { kind: 'service-gone' } }), {
      type: 'transitioned',
      result: { ok: true, request: failed },
    });
    expect(news(notOk.effects)).toEqual([{ kind: 'failed' }]);
    // Lost to another replica: that replica records, and tells.
    const lost = run(recording({ status: 'applied', audit: 'applied' }), {
      type: 'transitioned',
      result: { ok: false, reason: 'lost', request: applied },
    });
    expect(news(lost.effects)).toEqual([]);

    const expired = { ...pendingRequest(), status: 'expired' as const };
    const late = run(
      idle(),
      { type: 'clicked', decision: 'approve', userId: 'U1' },
      { type: 'policy-answered', verdict: { allowed: true } },
      { type: 'approval-recorded', result: { ok: false, reason: 'expired', request: expired } },
    );
    expect(news(late.effects)).toEqual([{ kind: 'expired' }]);
  });

  it('a revert tells "reverted" once applied, and nothing when it failed (the bot tries again)', () => {
    const revert = { ...claimed(), id: 'CR-X-R', revertOf: 'CR-X', requesterId: 'the bot' };
    const recording = (status: 'applied' | 'failed'): FlowState => ({
      request: revert,
      work: {
        phase: 'recording',
        actorId: 'the bot',
        mode: 'apply',
        outcome:
          status === 'applied'
            ? { status: 'applied', audit: 'applied' }
            : { status: 'failed', audit: 'failed', failure: { kind: 'service-gone' } },
      },
    });
    const applied = run(recording('applied'), {
      type: 'transitioned',
      result: { ok: true, request: { ...revert, status: 'applied' } },
    });
    expect(news(applied.effects)).toEqual([{ kind: 'reverted' }]);
    const failed = run(recording('failed'), {
      type: 'transitioned',
      result: { ok: true, request: { ...revert, status: 'failed' } },
    });
    expect(news(failed.effects)).toEqual([]);
  });
});

describe('requesterNewsMessage', () => {
  const request: ChangeRequest = { ...pendingRequest(), channelId: 'C0OPS', status: 'rejected' };

  it('words each kind, naming the request, the service and the channel, and escapes the reason', () => {
    const text = (n: RequesterNews, r: ChangeRequest = request) => requesterNewsMessage(r, n).text;
    expect(text({ kind: 'approved', by: 'U0APPROVER' })).toContain('was approved by <@U0APPROVER>');
    expect(text({ kind: 'applied' })).toContain('`CR-WORLD`');
    expect(text({ kind: 'applied' })).toContain('was applied');
    expect(text({ kind: 'failed' }, { ...request, outcome: { message: 'The service no longer exists.' } })).toContain(
      'was not applied: The service no longer exists.',
    );
    expect(text({ kind: 'rejected', by: 'U0APPROVER', reason: '<!channel> *now*' })).toContain(
      'was rejected by <@U0APPROVER>: “&lt;!channel&gt; ∗now∗”',
    );
    expect(text({ kind: 'expired' })).toContain('expired before it was approved');
    expect(text({ kind: 'reverted' }, { ...request, id: 'CR-X-R', revertOf: 'CR-X' })).toContain(
      'Your temporary change `CR-X`',
    );
    const blocks = JSON.stringify(requesterNewsMessage(request, { kind: 'applied' }).blocks);
    expect(blocks).toContain('<#C0OPS>');
  });
});

describe('apply time: a rule that now asks for a reason or a ticket', () => {
  const locked = (request: ChangeRequest): FlowState => ({
    request,
    work: { phase: 'locking', actorId: 'U1', mode: 'apply', deadline: CONTEXT.clock + 10, waitedFrom: CONTEXT.clock },
  });
  const asks = (require: { reason?: true; ticket?: string }) => ({
    kind: 'approve' as const,
    requirements: [{ rule: 'default', approvals: 1, approvers: [], reasons: [], selfApproval: false, require }],
  });
  /** The fresh read, then these rules judged on it (a revert is never held to them: it asks none). */
  const readWith = (request: ChangeRequest, rules: ReturnType<typeof asks>) => {
    const read = run(
      locked(request),
      { type: 'lock-answered', attempt: 'acquired', leaseLost: false },
      { type: 'service-read', service: service() },
    );
    if (read.effects[0]?.type !== 'judge-rules') return read.effects;
    return run(read.state, { type: 'rules-judged', rules }).effects;
  };

  it('refuses to send when the request lacks it, naming the rule', () => {
    expect(readWith(claimed(), asks({ reason: true }))[0]).toMatchObject({
      type: 'transition',
      to: 'failed',
      outcome: { failure: { kind: 'unjustified-now', lacking: { reason: { rule: 'default' } } } },
    });
    expect(readWith({ ...claimed(), ticket: 'ops-1' }, asks({ ticket: '^OPS-[0-9]+$' }))[0]).toMatchObject({
      outcome: { failure: { kind: 'unjustified-now', lacking: { ticket: { given: 'ops-1' } } } },
    });
  });

  it('sends when the request has it, and never asks it of a revert (the end of a grant approved with it)', () => {
    const rules = asks({ reason: true, ticket: '^OPS-[0-9]+$' });
    expect(readWith({ ...claimed(), reason: 'why', ticket: 'OPS-1' }, rules)[0]).toMatchObject({ type: 'send' });
    expect(readWith({ ...claimed(), revertOf: 'CR-A' }, rules)[0]).toMatchObject({ type: 'send' });
  });

  it('asks it of an extension or an undo like any request (issue 35: they are judged by their rules)', () => {
    const rules = asks({ reason: true });
    for (const link of [{ extendOf: 'CR-A' }, { undoOf: 'CR-A' }]) {
      expect(readWith({ ...claimed(), ...link }, rules)[0]).toMatchObject({
        outcome: { failure: { kind: 'unjustified-now', lacking: { reason: { rule: 'default' } } } },
      });
      expect(readWith({ ...claimed(), ...link, reason: 'why' }, rules)[0]).toMatchObject({ type: 'send' });
    }
  });
});
