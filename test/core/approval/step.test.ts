/**
 * The decision function, table by table: every (phase, event) pair is answered (never a throw),
 * events that do not apply leave the state as it was with a reason, and each path of a request's
 * life asks for exactly the effects the runner must perform.
 */
import { describe, expect, it } from 'vitest';
import { step } from './checked-step.js';
import {
  ASKING_EFFECTS,
  type Effect,
  type FlowEvent,
  type FlowState,
  type Work,
} from '../../../src/core/approval/types.js';
import type { ChangeRequest } from '../../../src/core/change/types.js';
import { CloudApiError } from '../../../src/core/service/api-error.js';
import { service } from '../fixtures.js';
import { CONTEXT, OPERATIONS, pendingRequest } from './world.js';

const LEASE = { owner: 'A', fence: 1, until: 99_999, sending: false };
const applying = (request = pendingRequest()): ChangeRequest => ({
  ...request,
  status: 'applying',
  decidedBy: 'U1',
  lease: LEASE,
});
const timeout = new CloudApiError('timeout', 'timed out');
const refused = new CloudApiError('http', 'bad', { status: 400, requestId: 'req-400' });

/** The rules in force judged on the fresh record: what they asked when the request was made. */
const JUDGED: FlowEvent = {
  type: 'rules-judged',
  rules: { kind: 'approve', requirements: pendingRequest().requirements ?? [] },
};

const WORKS: Work[] = [
  { phase: 'idle' },
  { phase: 'filing' },
  { phase: 'withdrawing', why: 'unposted' },
  { phase: 'checking', decision: 'approve', userId: 'U1' },
  { phase: 'deciding', decision: 'approve', userId: 'U1' },
  { phase: 'claiming', actorId: 'U1' },
  { phase: 'expiring' },
  { phase: 'scheduling' },
  { phase: 'locking', actorId: 'U1', mode: 'apply', deadline: 5_000, waitedFrom: 0 },
  { phase: 'reading', actorId: 'U1', mode: 'apply', attempt: 0 },
  { phase: 'judging', actorId: 'U1', service: service() },
  { phase: 'sending', actorId: 'U1', mode: 'apply', index: 0, results: [] },
  { phase: 'reconciling', actorId: 'U1', mode: 'apply', index: 0, attempt: 0, results: [], error: timeout },
  { phase: 'recording', actorId: 'U1', mode: 'apply', outcome: { status: 'applied', audit: 'applied' } },
  { phase: 'done' },
];

const EVENTS: FlowEvent[] = [
  { type: 'file' },
  { type: 'created' },
  { type: 'posted', ts: '1.1' },
  { type: 'post-failed', notInChannel: true },
  { type: 'message-ts-recorded' },
  { type: 'message-ts-failed' },
  { type: 'clicked', decision: 'approve', userId: 'U1' },
  { type: 'policy-answered', verdict: { allowed: true } },
  { type: 'approval-recorded', result: { ok: true, complete: true, request: applying() } },
  { type: 'apply-unreviewed', actorId: 'the bot' },
  { type: 'transitioned', result: { ok: true, request: applying() } },
  { type: 'taken-over', request: applying() },
  { type: 'lock-answered', attempt: 'acquired', leaseLost: false },
  { type: 'waited' },
  { type: 'service-read', service: service() },
  JUDGED,
  { type: 'read-failed', error: timeout },
  { type: 'operation-answered', index: 0, apiRequestId: 'req-1', service: service({ name: 'orders-next' }) },
  { type: 'operation-failed', index: 0, error: refused },
  { type: 'send-refused', index: 0 },
  { type: 'expiry-due', actorId: 'the bot' },
  { type: 'schedule-due', actorId: 'the bot', graceMs: 900_000 },
  { type: 'break-glass', actorId: 'U1' },
];

function run(state: FlowState, ...events: FlowEvent[]): { state: FlowState; effects: Effect[]; ignored?: string } {
  let current: { state: FlowState; effects: Effect[]; ignored?: string } = { state, effects: [] };
  for (const event of events) current = step(current.state, event, CONTEXT);
  return current;
}

const types = (effects: Effect[]) => effects.map((e) => e.type);

describe('step: every phase meets every event', () => {
  const final = { ...pendingRequest(), status: 'applied' as const };
  for (const work of WORKS)
    for (const event of EVENTS)
      it(`${work.phase} + ${event.type} is answered without a throw`, () => {
        const scheduled = { ...pendingRequest(), status: 'scheduled' as const, applyAt: 500, decidedBy: 'U1' };
        for (const request of [pendingRequest(), applying(), final, scheduled, undefined]) {
          const result = step({ request, work }, event, CONTEXT);
          if ('ignored' in result) {
            expect(result.state).toEqual({ request, work });
            expect(result.effects).toEqual([]);
            expect(result.ignored.length).toBeGreaterThan(0);
          }
          // A final status never moves: nothing is sent or transitioned for a settled request.
          if (request?.status === 'applied')
            expect(types(result.effects).filter((t) => t === 'send' || t === 'transition')).toEqual([]);
          // At most one effect asks something, and it comes last.
          const asking = result.effects.filter((e) => (ASKING_EFFECTS as readonly string[]).includes(e.type));
          expect(asking.length).toBeLessThanOrEqual(1);
          if (asking[0]) expect(result.effects.at(-1)).toBe(asking[0]);
        }
      });
});

describe('step: a request filed, decided and applied', () => {
  const idle = (request: ChangeRequest | undefined = pendingRequest()): FlowState => ({
    request,
    work: { phase: 'idle' },
  });

  it('files: create, post, record the message, then says filed (with the rules when none asks approval)', () => {
    const filed = run(idle(), { type: 'file', autoRules: ['dev'] }, { type: 'created' }, { type: 'posted', ts: '9.9' });
    expect(filed.effects).toEqual([{ type: 'record-message-ts', ts: '9.9' }]);
    const done = run(filed.state, { type: 'message-ts-recorded' });
    expect(done.effects).toEqual([
      {
        type: 'reply',
        reply: { kind: 'filed', request: { ...pendingRequest(), messageTs: '9.9' }, autoRules: ['dev'] },
      },
    ]);
  });

  it('expires a pending request past its expiry when the sweep says so: record, show, tell; a race lost says nothing', () => {
    const overdue = { ...pendingRequest(), expiresAt: CONTEXT.now - 1 };
    const asked = run({ request: overdue, work: { phase: 'idle' } }, { type: 'expiry-due', actorId: 'the bot' });
    expect(asked.effects).toEqual([
      { type: 'transition', from: ['pending'], to: 'expired', actorId: 'the bot', audit: 'expired' },
    ]);
    const expired = { ...overdue, status: 'expired' as const };
    const done = run(asked.state, { type: 'transitioned', result: { ok: true, request: expired } });
    expect(types(done.effects)).toEqual(['show', 'tell-requester']);
    const lost = run(asked.state, {
      type: 'transitioned',
      result: { ok: false, reason: 'conflict', request: { ...overdue, status: 'rejected' } },
    });
    expect(lost.effects).toEqual([]);
    // Not yet due, or no longer pending: nothing happens.
    expect(run(idle(), { type: 'expiry-due', actorId: 'the bot' }).ignored).toBe('the request has not expired yet');
  });

  it('withdraws a request it could not post, and says why', () => {
    const failed = run(idle(), { type: 'file' }, { type: 'created' }, { type: 'post-failed', notInChannel: true });
    expect(types(failed.effects)).toEqual(['log', 'transition']);
    expect(failed.effects[1]).toMatchObject({
      to: 'cancelled',
      note: { kind: 'withdrawn-unposted' },
      bestEffort: true,
    });
    const told = run(failed.state, { type: 'transitioned', result: { ok: false, reason: 'missing' } });
    expect(told.effects).toEqual([{ type: 'reply', reply: { kind: 'not-posted', notInChannel: true } }]);
  });

  it('refuses a click on a missing, settled or revert request before asking the policy', () => {
    expect(
      run({ request: undefined, work: { phase: 'idle' } }, { type: 'clicked', decision: 'approve', userId: 'U1' })
        .effects,
    ).toEqual([{ type: 'reply', reply: { kind: 'gone-long-ago' } }]);
    const settled = { ...pendingRequest(), status: 'rejected' as const };
    expect(run(idle(settled), { type: 'clicked', decision: 'approve', userId: 'U1' }).effects).toEqual([
      { type: 'reply', reply: { kind: 'already-decided', request: settled } },
    ]);
    const revert = { ...pendingRequest(), revertOf: 'CR-X' };
    expect(run(idle(revert), { type: 'clicked', decision: 'approve', userId: 'U1' }).effects).toEqual([
      { type: 'reply', reply: { kind: 'revert-needs-no-decision' } },
    ]);
  });

  it('asks the policy, then records the approval with the requirements it counts for', () => {
    const checked = run(idle(), { type: 'clicked', decision: 'approve', userId: 'U1' });
    expect(checked.effects).toEqual([{ type: 'check-policy', decision: 'approve', userId: 'U1' }]);
    const denied = run(checked.state, { type: 'policy-answered', verdict: { allowed: false, reason: 'Not you.' } });
    expect(denied.effects).toEqual([{ type: 'reply', reply: { kind: 'not-allowed', reason: 'Not you.' } }]);
    const counted = run(checked.state, { type: 'policy-answered', verdict: { allowed: true, counts: [0] } });
    expect(counted.effects).toEqual([{ type: 'add-approval', approverId: 'U1', at: CONTEXT.now, counts: [0] }]);
  });

  it('a reject is one transition, shown once recorded', () => {
    const checked = run(
      idle(),
      { type: 'clicked', decision: 'reject', userId: 'U1' },
      { type: 'policy-answered', verdict: { allowed: true } },
    );
    expect(checked.effects).toEqual([
      { type: 'transition', from: ['pending'], to: 'rejected', actorId: 'U1', audit: 'rejected' },
    ]);
    const rejected = { ...pendingRequest(), status: 'rejected' as const };
    expect(run(checked.state, { type: 'transitioned', result: { ok: true, request: rejected } }).effects).toEqual([
      { type: 'show', request: rejected },
      { type: 'tell-requester', request: rejected, news: { kind: 'rejected', by: 'U1' } },
    ]);
  });

  it('the approval that completes the request holds the lease, shows applying and takes the service lock', () => {
    const decided = run(
      idle(),
      { type: 'clicked', decision: 'approve', userId: 'U1' },
      { type: 'policy-answered', verdict: { allowed: true } },
    );
    const claimed = applying();
    const started = run(decided.state, {
      type: 'approval-recorded',
      result: { ok: true, complete: true, request: claimed },
    });
    expect(started.effects).toEqual([
      { type: 'tell-requester', request: claimed, news: { kind: 'approved', by: 'U1' } },
      { type: 'hold-lease', request: claimed },
      { type: 'show', request: claimed },
      { type: 'lock-service' },
    ]);
    const partial = run(decided.state, {
      type: 'approval-recorded',
      result: { ok: true, complete: false, request: pendingRequest() },
    });
    expect(types(partial.effects)).toEqual(['show', 'reply']);
  });

  const locked = (request = applying()): FlowState => ({
    request,
    work: { phase: 'locking', actorId: 'U1', mode: 'apply', deadline: CONTEXT.clock + 10, waitedFrom: CONTEXT.clock },
  });

  it('a busy lock is polled until its deadline, then the request fails in a sentence', () => {
    expect(run(locked(), { type: 'lock-answered', attempt: 'busy', leaseLost: false }).effects).toEqual([
      { type: 'wait', ms: 100, jitter: true },
    ]);
    const late = {
      ...locked(),
      work: {
        phase: 'locking',
        actorId: 'U1',
        mode: 'apply',
        deadline: CONTEXT.clock,
        waitedFrom: CONTEXT.clock - 120_000,
      },
    } as FlowState;
    const timedOut = run(late, { type: 'lock-answered', attempt: 'busy', leaseLost: false });
    expect(timedOut.effects[0]).toMatchObject({
      type: 'transition',
      to: 'failed',
      outcome: { failure: { kind: 'lock-timeout', waitedMs: 120_000 } },
    });
  });

  it('a lost lease stops before anything is sent, and says so to the clicker', () => {
    expect(run(locked(), { type: 'lock-answered', attempt: 'lost', leaseLost: false }).effects).toEqual([
      { type: 'release-lease' },
      { type: 'reply', reply: { kind: 'lost-before-sending' } },
    ]);
  });

  it('a stale service is refused, naming the fields that moved', () => {
    const read = run(
      locked(),
      { type: 'lock-answered', attempt: 'acquired', leaseLost: false },
      { type: 'service-read', service: service({ releaseChannel: 'slow' }) },
    );
    expect(read.effects[0]).toMatchObject({
      type: 'transition',
      audit: 'stale',
      outcome: { failure: { kind: 'stale', labels: ['Release channel'] } },
    });
  });

  it('sends the operations in order, one at a time, and records applied with what each came to', () => {
    const sending = run(
      locked(),
      { type: 'lock-answered', attempt: 'acquired', leaseLost: false },
      { type: 'service-read', service: service() },
      JUDGED,
    );
    expect(sending.effects).toEqual([{ type: 'send', index: 0, operation: OPERATIONS[0] }]);
    const confirming = run(sending.state, {
      type: 'operation-answered',
      index: 0,
      apiRequestId: 'r0',
      service: service(),
    });
    // The first is recorded as confirmed before the second goes out.
    expect(confirming.effects).toEqual([
      { type: 'record-confirmed', results: [{ index: 0, endpoint: 'update', status: 'applied', apiRequestId: 'r0' }] },
    ]);
    const second = run(confirming.state, { type: 'confirmed-recorded', result: 'recorded' });
    expect(second.effects).toEqual([{ type: 'send', index: 1, operation: OPERATIONS[1] }]);
    expect(second.state.request?.confirmed).toHaveLength(1);
    // A duplicate answer of the first operation changes nothing.
    expect(
      run(second.state, { type: 'operation-answered', index: 0, apiRequestId: 'r0', service: service() }).ignored,
    ).toMatch(/not the one sent/);
    const after = service({ name: 'orders-next', releaseChannel: 'fast' });
    const done = run(second.state, { type: 'operation-answered', index: 1, apiRequestId: 'r1', service: after });
    expect(done.effects[0]).toMatchObject({
      type: 'transition',
      to: 'applied',
      holding: true,
      outcome: {
        apiRequestId: 'r1',
        results: [
          { index: 0, status: 'applied' },
          { index: 1, status: 'applied' },
        ],
        service: after,
      },
    });
  });

  it('the lease lost while recording a confirmed operation: nothing more is sent here', () => {
    const sending = run(
      locked(),
      { type: 'lock-answered', attempt: 'acquired', leaseLost: false },
      { type: 'service-read', service: service() },
      JUDGED,
      { type: 'operation-answered', index: 0, apiRequestId: 'r0', service: service() },
    );
    const lost = run(sending.state, { type: 'confirmed-recorded', result: 'lost' });
    expect(lost.effects).toEqual([{ type: 'release-lease' }, { type: 'reply', reply: { kind: 'lost-after-sending' } }]);
  });

  it('the store unreachable while recording: the next operation still goes out (a takeover reads the service)', () => {
    const sending = run(
      locked(),
      { type: 'lock-answered', attempt: 'acquired', leaseLost: false },
      { type: 'service-read', service: service() },
      JUDGED,
      { type: 'operation-answered', index: 0, apiRequestId: 'r0', service: service() },
    );
    const next = run(sending.state, { type: 'confirmed-recorded', result: 'unavailable' });
    expect(next.effects).toEqual([{ type: 'send', index: 1, operation: OPERATIONS[1] }]);
    expect(next.state.request?.confirmed).toBeUndefined();
  });

  it('a refused second operation records which part happened', () => {
    const sending = run(
      locked(),
      { type: 'lock-answered', attempt: 'acquired', leaseLost: false },
      { type: 'service-read', service: service() },
      JUDGED,
      { type: 'operation-answered', index: 0, apiRequestId: 'r0', service: service() },
      { type: 'confirmed-recorded', result: 'recorded' },
    );
    const failed = run(sending.state, { type: 'operation-failed', index: 1, error: refused });
    expect(failed.effects[0]).toMatchObject({
      to: 'failed',
      outcome: {
        failure: { kind: 'api-refused' },
        results: [
          { index: 0, status: 'applied' },
          { index: 1, status: 'failed', apiRequestId: 'req-400' },
        ],
      },
    });
  });

  it('an unknown outcome is looked at, not replayed: re-reads with the delays, then fails', () => {
    const single = applying({ ...pendingRequest(OPERATIONS.slice(0, 1)) });
    const sending = run(
      locked(single),
      { type: 'lock-answered', attempt: 'acquired', leaseLost: false },
      { type: 'service-read', service: service() },
      JUDGED,
    );
    const looking = run(sending.state, { type: 'operation-failed', index: 0, error: timeout });
    expect(looking.effects).toEqual([{ type: 'read-service' }]);
    const again = run(looking.state, { type: 'service-read', service: service() });
    expect(again.effects).toEqual([{ type: 'wait', ms: 2_000 }]);
    const last = run(
      again.state,
      { type: 'waited' },
      { type: 'service-read', service: service() },
      { type: 'waited' },
      { type: 'service-read', service: service() },
    );
    expect(last.effects[0]).toMatchObject({ to: 'failed', outcome: { failure: { kind: 'not-shown' } } });
    expect(types([...looking.effects, ...again.effects, ...last.effects])).not.toContain('send');
    const shown = run(looking.state, { type: 'service-read', service: service({ name: 'orders-next' }) });
    expect(shown.effects[0]).toMatchObject({ to: 'applied', outcome: { note: 'confirmed-by-reread' } });
  });

  it('recorded: shows the message, posts the record, follows up; lost to a takeover: corrects if needed', () => {
    const recording: FlowState = {
      request: applying(),
      work: {
        phase: 'recording',
        actorId: 'U1',
        mode: 'apply',
        outcome: { status: 'applied', audit: 'applied', apiRequestId: 'r1', service: service() },
      },
    };
    const applied = { ...applying(), status: 'applied' as const };
    expect(types(run(recording, { type: 'transitioned', result: { ok: true, request: applied } }).effects)).toEqual([
      'release-lease',
      'show',
      'post-result',
      'tell-requester',
      'follow-up',
    ]);
    expect(
      types(
        run(recording, { type: 'transitioned', result: { ok: false, reason: 'conflict', request: applied } }).effects,
      ),
    ).toEqual(['log', 'post-correction', 'release-lease', 'reply']);
  });
});

describe('step: settling a request whose replica stopped', () => {
  const taken = (lease: ChangeRequest['lease']) => ({ ...applying(), lease });

  it('a replica that never sent: failed, nothing was changed', () => {
    const result = run(
      { request: undefined, work: { phase: 'idle' } },
      { type: 'taken-over', request: taken({ ...LEASE, fence: 2, sending: false }) },
    );
    expect(result.effects[1]).toMatchObject({ to: 'failed', outcome: { failure: { kind: 'stopped-before-sending' } } });
  });

  it('a replica that sent: waits out its send window and the API timeout before looking', () => {
    const lease = { ...LEASE, fence: 2, sending: true, sentAt: 1_000, takenAt: 2_000 };
    const result = run({ request: undefined, work: { phase: 'idle' } }, { type: 'taken-over', request: taken(lease) });
    expect(result.effects[1]).toEqual({ type: 'wait', ms: 1_000 + 5_000 + 15_000 + 1_000 - 2_000 });
  });

  it('resumes at the first operation not shown when the earlier ones are', () => {
    const lease = { ...LEASE, fence: 2, sending: true };
    let state = run(
      { request: undefined, work: { phase: 'idle' } },
      { type: 'taken-over', request: taken(lease) },
      { type: 'lock-answered', attempt: 'acquired', leaseLost: false },
    ).state;
    const halfway = service({ name: 'orders-next' });
    let result = run(
      state,
      { type: 'service-read', service: halfway },
      { type: 'waited' },
      { type: 'service-read', service: halfway },
      { type: 'waited' },
    );
    state = result.state;
    result = run(state, { type: 'service-read', service: halfway });
    // What the service shows is recorded as confirmed first, then the rest goes out.
    expect(result.effects).toEqual([
      { type: 'record-confirmed', results: [{ index: 0, endpoint: 'update', status: 'applied' }] },
    ]);
    result = run(result.state, { type: 'confirmed-recorded', result: 'recorded' });
    expect(result.effects).toEqual([{ type: 'send', index: 1, operation: OPERATIONS[1] }]);
  });

  it('trusts the operations recorded as confirmed, though the service no longer shows them', () => {
    // The first operation was confirmed and recorded; something else renamed the service since.
    const lease = { ...LEASE, fence: 2, sending: true };
    const confirmed = [{ index: 0, endpoint: 'update' as const, status: 'applied' as const, apiRequestId: 'r0' }];
    const result = run(
      { request: undefined, work: { phase: 'idle' } },
      { type: 'taken-over', request: { ...taken(lease), confirmed } },
      { type: 'lock-answered', attempt: 'acquired', leaseLost: false },
      { type: 'service-read', service: service({ name: 'renamed-meanwhile' }) },
      { type: 'waited' },
      { type: 'service-read', service: service({ name: 'renamed-meanwhile' }) },
      { type: 'waited' },
      { type: 'service-read', service: service({ name: 'renamed-meanwhile' }) },
    );
    // Resumes at the second operation without re-recording the first.
    expect(result.effects).toEqual([{ type: 'send', index: 1, operation: OPERATIONS[1] }]);
    const done = run(result.state, {
      type: 'operation-answered',
      index: 1,
      apiRequestId: 'r1',
      service: service({ name: 'renamed-meanwhile', releaseChannel: 'fast' }),
    });
    expect(done.effects[0]).toMatchObject({
      to: 'applied',
      outcome: {
        results: [
          { index: 0, status: 'applied', apiRequestId: 'r0' },
          { index: 1, status: 'applied', apiRequestId: 'r1' },
        ],
      },
    });
  });

  it('a confirmed record that skips an operation is not trusted past the gap', () => {
    const lease = { ...LEASE, fence: 2, sending: true };
    const confirmed = [{ index: 1, endpoint: 'update' as const, status: 'applied' as const }];
    const result = run(
      { request: undefined, work: { phase: 'idle' } },
      { type: 'taken-over', request: { ...taken(lease), confirmed } },
      { type: 'lock-answered', attempt: 'acquired', leaseLost: false },
      { type: 'service-read', service: service({ name: 'orders-next', releaseChannel: 'fast' }) },
    );
    // Judged from the service: both operations show, so it is applied.
    expect(result.effects[0]).toMatchObject({ to: 'applied', outcome: { note: 'settled-shows' } });
  });

  it('nothing shown after the re-checks: failed, and says the service does not show it', () => {
    const lease = { ...LEASE, fence: 2, sending: true };
    const result = run(
      { request: undefined, work: { phase: 'idle' } },
      { type: 'taken-over', request: taken(lease) },
      { type: 'lock-answered', attempt: 'acquired', leaseLost: false },
      { type: 'service-read', service: service() },
      { type: 'waited' },
      { type: 'service-read', service: service() },
      { type: 'waited' },
      { type: 'service-read', service: service() },
    );
    expect(result.effects[0]).toMatchObject({ to: 'failed', outcome: { failure: { kind: 'settled-not-shown' } } });
  });
});
