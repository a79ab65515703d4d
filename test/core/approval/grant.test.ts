/**
 * Temporary changes and Undo as events of the decision function (core/approval/grant.ts): every
 * branch as a table of events and the effects it asks, and random sequences that never move the
 * grant and never throw.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { step } from './checked-step.js';
import type { Effect, FlowEvent, FlowState, GrantReply } from '../../../src/core/approval/types.js';
import { REVERT_ATTEMPTS_MAX, REVERT_LOOK_AGAIN_MS, revertRetryMs } from '../../../src/core/change/grant.js';
import type { ChangeRequest } from '../../../src/core/change/types.js';
import { changeRequest, mustPlan, NOW, service } from '../fixtures.js';
import { CONTEXT } from './world.js';

const GRANT_ID = 'CR-GRANT';
const TEMPORARY = { durationMs: 3_600_000, remindAfterMs: 3_000_000 };

function grant(overrides: Partial<ChangeRequest> = {}): ChangeRequest {
  return changeRequest(mustPlan(service(), { ipAdd: [{ source: '192.0.2.44', description: 'hotel' }] }), {
    id: GRANT_ID,
    status: 'applied',
    temporary: TEMPORARY,
    messageTs: '111.1',
    decidedAt: NOW,
    ...overrides,
  });
}

/** The grant's IP entry as the service shows it after the grant. */
const granted = () =>
  service({
    ipAccessList: [
      { source: '10.0.0.0/8', description: 'office' },
      { source: '203.0.113.7/32', description: 'vpn' },
      { source: '192.0.2.44', description: 'hotel' },
    ],
  });

function run(state: FlowState, ...events: FlowEvent[]) {
  let current: { state: FlowState; effects: Effect[]; ignored?: string } = { state, effects: [] };
  for (const event of events) current = step(current.state, event, CONTEXT);
  return current;
}

const idle = (request: ChangeRequest | undefined = grant()): FlowState => ({ request, work: { phase: 'idle' } });
/** No record at all (a default parameter would fill `undefined` in). */
const gone: FlowState = { request: undefined, work: { phase: 'idle' } };
const types = (effects: Effect[]) => effects.map((effect) => effect.type);
const replyOf = (effects: Effect[]): GrantReply | undefined => {
  const found = effects.find((effect) => effect.type === 'reply');
  return found?.type === 'reply' ? (found.reply as GrantReply) : undefined;
};
const due: FlowEvent = { type: 'revert-due', originalId: GRANT_ID, actorId: 'the bot', failures: 0 };
const nothingYet: FlowEvent = { type: 'revert-read', latest: { attempt: 1, revert: undefined } };

describe('a grant whose revert is due', () => {
  it('files the first attempt against the service as it is now, then applies it', () => {
    const read = run(idle(), due);
    expect(read.effects).toEqual([{ type: 'read-revert' }]);
    const planning = run(read.state, nothingYet);
    expect(planning.effects).toEqual([{ type: 'read-for-revert' }]);
    const filing = run(planning.state, { type: 'revert-planning', service: granted(), later: [] });
    const [file] = filing.effects;
    expect(file?.type).toBe('file-revert');
    if (file?.type !== 'file-revert') throw new Error('no file-revert');
    expect(file.candidate).toMatchObject({
      id: `${GRANT_ID}-R`,
      status: 'pending',
      revertOf: GRANT_ID,
      requesterId: 'the bot',
      threadTs: '111.1',
      plan: { update: { ipAccessList: { remove: [{ source: '192.0.2.44' }] } } },
    });
    const applying = run(filing.state, { type: 'revert-filed', revert: file.candidate });
    expect(applying.effects).toEqual([{ type: 'apply-revert', revert: file.candidate, actorId: 'the bot' }]);
    // The sweep asked: nobody is told anything more (the thread shows the revert).
    const ran = run(applying.state, { type: 'revert-ran', latest: { attempt: 1, revert: file.candidate } });
    expect(ran.effects).toEqual([]);
    expect(ran.state.work.phase).toBe('done');
    expect(ran.state.request?.status).toBe('applied');
  });

  it('a record that is gone: loud, counted, looked at again hourly, never dropped', () => {
    const result = run(gone, due);
    expect(result.effects).toEqual([
      { type: 'log', level: 'error', fact: { kind: 'revert-record-missing', originalId: GRANT_ID } },
      { type: 'count-missing-record', originalId: GRANT_ID },
      { type: 'postpone-revert', originalId: GRANT_ID, ms: REVERT_LOOK_AGAIN_MS },
      { type: 'reply', reply: { kind: 'revert-record-missing', originalId: GRANT_ID } },
    ]);
  });

  it('a grant never applied (or not temporary) has nothing to take back: its schedule goes', () => {
    for (const request of [grant({ status: 'failed' }), grant({ temporary: undefined })]) {
      const result = run(idle(request), due);
      expect(types(result.effects)).toEqual(['forget-revert', 'reply']);
      expect(replyOf(result.effects)?.kind).toBe('grant-inactive');
    }
  });

  it('after an attempt that failed with something left, the next attempt gets the next id', () => {
    const failed = changeRequest(grant().plan, { id: `${GRANT_ID}-R3`, status: 'failed', revertOf: GRANT_ID });
    const planning = run(idle(), due, { type: 'revert-read', latest: { attempt: 3, revert: failed } });
    const filing = run(planning.state, { type: 'revert-planning', service: granted(), later: [] });
    expect(filing.effects[0]).toMatchObject({ type: 'file-revert', candidate: { id: `${GRANT_ID}-R4` } });
  });

  it('an attempt that expired unapplied (every replica down for a week) is followed by the next, never forgotten', () => {
    const expired = changeRequest(grant().plan, { id: `${GRANT_ID}-R`, status: 'expired', revertOf: GRANT_ID });
    const planning = run(idle(), due, { type: 'revert-read', latest: { attempt: 1, revert: expired } });
    expect(planning.effects).toEqual([{ type: 'read-for-revert' }]);
    const filing = run(planning.state, { type: 'revert-planning', service: granted(), later: [] });
    expect(filing.effects[0]).toMatchObject({ type: 'file-revert', candidate: { id: `${GRANT_ID}-R2` } });
  });

  it(`gives up after ${REVERT_ATTEMPTS_MAX} failed attempts: loud, hourly, and says to take it back by hand`, () => {
    const last = changeRequest(grant().plan, {
      id: `${GRANT_ID}-R${REVERT_ATTEMPTS_MAX}`,
      status: 'failed',
      revertOf: GRANT_ID,
      outcome: { message: 'API refused' },
    });
    const result = run(idle(), due, { type: 'revert-read', latest: { attempt: REVERT_ATTEMPTS_MAX, revert: last } });
    expect(types(result.effects)).toEqual(['log', 'postpone-revert', 'reply']);
    expect(result.effects[1]).toMatchObject({ ms: REVERT_LOOK_AGAIN_MS });
    expect(replyOf(result.effects)).toMatchObject({ kind: 'revert-gave-up', lastId: last.id });
  });

  it('an attempt being applied elsewhere is pointed to; one already over ends the schedule', () => {
    const revert = (status: ChangeRequest['status']) =>
      changeRequest(grant().plan, { id: `${GRANT_ID}-R`, status, revertOf: GRANT_ID });
    const applying = run(idle(), due, { type: 'revert-read', latest: { attempt: 1, revert: revert('applying') } });
    expect(applying.effects).toEqual([{ type: 'reply', reply: { kind: 'reverting-now', revertId: `${GRANT_ID}-R` } }]);
    const applied = run(idle(), due, { type: 'revert-read', latest: { attempt: 1, revert: revert('applied') } });
    expect(types(applied.effects)).toEqual(['forget-revert', 'reply']);
  });

  it('two replicas sweeping at once: an attempt the other one filed and that failed keeps the grant scheduled', () => {
    // Replica B read "no attempt yet"; meanwhile replica A filed CR-GRANT-R, applied it, it failed
    // (the API refused it) and A postponed the grant. B's create-if-absent reads A's failed attempt back.
    const filing = run(idle(), due, nothingYet, { type: 'revert-planning', service: granted(), later: [] });
    const [file] = filing.effects;
    if (file?.type !== 'file-revert') throw new Error('no file-revert');
    const failedByA = { ...file.candidate, status: 'failed' as const, outcome: { message: 'API down' } };
    const judged = run(filing.state, { type: 'revert-filed', revert: failedByA });
    // Forgetting it here would drop the retry A scheduled: the access would stay open for good.
    expect(types(judged.effects)).not.toContain('forget-revert');
    expect(types(judged.effects)).not.toContain('apply-revert');
  });

  it('found everything already changed: recorded as such, the grant is over, and said', () => {
    const untouched = service(); // the hotel entry is gone already
    const planning = run(idle(), due, nothingYet);
    const filing = run(planning.state, { type: 'revert-planning', service: untouched, later: [] });
    const [file] = filing.effects;
    if (file?.type !== 'file-revert') throw new Error('no file-revert');
    const settling = run(filing.state, { type: 'revert-filed', revert: file.candidate });
    expect(settling.effects).toEqual([{ type: 'settle-unsent-revert', revert: file.candidate, actorId: 'the bot' }]);
    const done = run(settling.state, { type: 'revert-unsent-settled', ok: true });
    expect(types(done.effects)).toEqual(['forget-revert', 'close-reminder', 'reply']);
    expect(replyOf(done.effects)?.kind).toBe('nothing-left-to-revert');
  });

  it('a stop still stopping is not reverted yet: the sweep backs off, a person is told', () => {
    const stopGrant = grant({ plan: mustPlan(service(), { power: 'stop' }) });
    const stopping = service({ state: 'stopping' });
    const swept = run(idle(stopGrant), { ...due, failures: 2 }, nothingYet, {
      type: 'revert-planning',
      service: stopping,
      later: [],
    });
    expect(types(swept.effects)).toEqual(['log', 'postpone-revert', 'reply']);
    expect(swept.effects[1]).toMatchObject({ ms: revertRetryMs(3) });
    const asked = run(
      idle(stopGrant),
      { type: 'grant-clicked', action: 'revert-now', userId: 'U1' },
      { type: 'may-act-answered', verdict: { allowed: true } },
      nothingYet,
      { type: 'revert-planning', service: stopping, later: [] },
    );
    expect(types(asked.effects)).toEqual(['reply']);
    expect(replyOf(asked.effects)?.kind).toBe('revert-not-yet');
  });
});

describe('a revert attempt that settled', () => {
  const attempt = (overrides: Partial<ChangeRequest>) =>
    changeRequest(grant().plan, { id: `${GRANT_ID}-R2`, revertOf: GRANT_ID, ...overrides });

  it('applied: the grant is over (schedule dropped, reminder closed)', () => {
    const result = run(idle(), { type: 'revert-settled', revert: attempt({ status: 'applied' }) });
    expect(result.effects).toEqual([
      { type: 'forget-revert', originalId: GRANT_ID },
      { type: 'close-reminder', originalId: GRANT_ID, revertId: `${GRANT_ID}-R2` },
    ]);
  });

  it('failed with something left: tried again later, backing off by attempt, and logged', () => {
    const result = run(idle(), { type: 'revert-settled', revert: attempt({ status: 'failed' }) });
    expect(types(result.effects)).toEqual(['log', 'postpone-revert']);
    expect(result.effects[0]).toMatchObject({ fact: { kind: 'revert-failed', revertId: `${GRANT_ID}-R2` } });
    expect(result.effects[1]).toEqual({ type: 'postpone-revert', originalId: GRANT_ID, ms: revertRetryMs(2) });
  });

  it('its grant gone from the store: the schedule still goes', () => {
    const result = run(gone, { type: 'revert-settled', revert: attempt({ status: 'applied' }) });
    expect(types(result.effects)).toEqual(['forget-revert', 'close-reminder']);
  });
});

describe('a grant applied (or extended)', () => {
  it('says in its thread when the bot reverts it; nothing without a schedule', () => {
    const applied = grant();
    expect(run(idle(), { type: 'grant-applied', applied, dueAt: NOW + 60_000 }).effects).toEqual([
      { type: 'announce-revert', applied, dueAt: NOW + 60_000 },
    ]);
    expect(run(idle(), { type: 'grant-applied', applied }).ignored).toMatch(/no scheduled revert/);
  });
});

describe('Revert now, Extend and Undo', () => {
  it('refuse at once what cannot apply, before asking the rules', () => {
    const notTemporary = grant({ temporary: undefined });
    expect(
      replyOf(run(idle(notTemporary), { type: 'grant-clicked', action: 'revert-now', userId: 'U1' }).effects)?.kind,
    ).toBe('not-temporary');
    expect(replyOf(run(idle(), { type: 'grant-clicked', action: 'extend', userId: 'U1' }).effects)?.kind).toBe(
      'extension-inactive',
    );
    const pending = grant({ status: 'pending' });
    expect(replyOf(run(idle(pending), { type: 'grant-clicked', action: 'undo', userId: 'U1' }).effects)?.kind).toBe(
      'undo-not-applied',
    );
  });

  it('someone the rules do not allow is told so, for each button', () => {
    for (const action of ['revert-now', 'extend', 'undo'] as const) {
      const result = run(
        idle(),
        { type: 'grant-clicked', action, userId: 'U-OUT', dueAt: NOW },
        { type: 'may-act-answered', verdict: { allowed: false, reason: 'Not an approver.' } },
      );
      expect(replyOf(result.effects)).toEqual({ kind: 'grant-not-allowed', action, reason: 'Not an approver.' });
    }
  });

  it('Revert now by someone allowed reverts like the sweep, and tells them how it went', () => {
    const started = run(
      idle(),
      { type: 'grant-clicked', action: 'revert-now', userId: 'U1' },
      { type: 'may-act-answered', verdict: { allowed: true } },
    );
    expect(started.effects).toEqual([{ type: 'read-revert' }]);
    const applying = run(started.state, nothingYet, { type: 'revert-planning', service: granted(), later: [] });
    const [file] = applying.effects;
    if (file?.type !== 'file-revert') throw new Error('no file-revert');
    expect(file.candidate.requesterId).toBe('U1');
    const ran = run(applying.state, { type: 'revert-filed', revert: file.candidate });
    const failed = { ...file.candidate, status: 'failed' as const, outcome: { message: 'API down' } };
    expect(replyOf(run(ran.state, { type: 'revert-ran', latest: { attempt: 1, revert: failed } }).effects)).toEqual({
      kind: 'revert-failed-retrying',
      originalId: GRANT_ID,
      message: 'API down',
    });
    const applied = { ...file.candidate, status: 'applied' as const };
    expect(replyOf(run(ran.state, { type: 'revert-ran', latest: { attempt: 1, revert: applied } }).effects)).toEqual({
      kind: 'reverted-now',
      originalId: GRANT_ID,
    });
  });

  it('Extend: one filing per flood of clicks, an open one pointed to, then filed as its own request', () => {
    const claiming = run(
      idle(),
      { type: 'grant-clicked', action: 'extend', userId: 'U1', dueAt: NOW + 60_000 },
      { type: 'may-act-answered', verdict: { allowed: true } },
    );
    expect(claiming.effects).toEqual([{ type: 'claim-click', action: 'extend' }]);
    expect(replyOf(run(claiming.state, { type: 'click-claimed', open: 'CR-OPEN', claimed: false }).effects)).toEqual({
      kind: 'follow-on-open',
      action: 'extend',
      originalId: GRANT_ID,
      openId: 'CR-OPEN',
    });
    expect(replyOf(run(claiming.state, { type: 'click-claimed', claimed: false }).effects)?.kind).toBe(
      'follow-on-being-filed',
    );
    const reading = run(claiming.state, { type: 'click-claimed', claimed: true });
    expect(reading.effects).toEqual([{ type: 'read-for-follow-on', userId: 'U1' }]);
    const filing = run(reading.state, { type: 'follow-on-read', service: granted() });
    expect(filing.effects[0]).toMatchObject({
      type: 'file-follow-on',
      action: 'extend',
      plan: { update: {}, changes: [{ label: `Revert of ${GRANT_ID}` }] },
    });
    // A refusal frees the button for another try.
    const refused = run(filing.state, { type: 'follow-on-filed', outcome: { ok: false, text: 'Denied.' } });
    expect(types(refused.effects)).toEqual(['release-click', 'reply']);
  });

  it('Undo: nothing left to undo is said (and frees the button); the service gone too', () => {
    const reading = run(
      idle(),
      { type: 'grant-clicked', action: 'undo', userId: 'U1' },
      { type: 'may-act-answered', verdict: { allowed: true } },
      { type: 'click-claimed', claimed: true },
    );
    const nothing = run(reading.state, { type: 'follow-on-read', service: service() });
    expect(types(nothing.effects)).toEqual(['release-click', 'reply']);
    expect(replyOf(nothing.effects)?.kind).toBe('nothing-left-to-undo');
    const gone = run(reading.state, { type: 'follow-on-read', service: undefined });
    expect(replyOf(gone.effects)).toEqual({ kind: 'follow-on-service-gone', action: 'undo' });
    const filing = run(reading.state, { type: 'follow-on-read', service: granted() });
    expect(filing.effects[0]).toMatchObject({
      type: 'file-follow-on',
      action: 'undo',
      plan: { update: { ipAccessList: { remove: [{ source: '192.0.2.44' }] } } },
    });
  });
});

describe('grant events against the rest of the machine', () => {
  it('an applied request takes grant events, but still ignores the approval events', () => {
    expect(run(idle(), due).ignored).toBeUndefined();
    expect(run(idle(), { type: 'waited' }).ignored).toMatch(/already applied/);
  });

  it('a grant event in the wrong phase changes nothing', () => {
    const reverting = run(idle(), due).state;
    expect(run(reverting, { type: 'click-claimed', claimed: true }).ignored).toMatch(/expected phase following-on/);
    expect(run(reverting, due).ignored).toMatch(/starts a run of its own/);
  });

  it('random sequences of grant events never move the grant, never throw, never ask a transition of it', () => {
    const events: FlowEvent[] = [
      due,
      { type: 'grant-clicked', action: 'revert-now', userId: 'U1' },
      { type: 'grant-clicked', action: 'extend', userId: 'U1', dueAt: NOW },
      { type: 'grant-clicked', action: 'undo', userId: 'U1' },
      { type: 'may-act-answered', verdict: { allowed: true } },
      { type: 'may-act-answered', verdict: { allowed: false, reason: 'no' } },
      nothingYet,
      { type: 'revert-planning', service: granted(), later: [] },
      { type: 'revert-planning', service: undefined, later: [] },
      { type: 'revert-filed', revert: undefined },
      { type: 'revert-unsent-settled', ok: true },
      { type: 'revert-ran', latest: { attempt: 1, revert: undefined } },
      { type: 'click-claimed', claimed: true },
      { type: 'follow-on-read', service: granted() },
      { type: 'follow-on-filed', outcome: { ok: false, text: 'no' } },
      { type: 'grant-applied', applied: grant(), dueAt: NOW },
    ];
    fc.assert(
      fc.property(fc.array(fc.nat(events.length - 1), { maxLength: 30 }), (picks) => {
        let state = idle();
        for (const pick of picks) {
          const event = events[pick];
          if (!event) continue;
          const result = step(state, event, CONTEXT);
          expect(result.effects.some((effect) => effect.type === 'transition')).toBe(false);
          expect(result.state.request?.status ?? 'applied').toBe('applied');
          state = result.state.work.phase === 'done' ? idle(result.state.request) : result.state;
        }
      }),
      { numRuns: 100 },
    );
  });
});
