/**
 * Filing decided (core/approval/filing.ts): refused in a sentence, filed for approval, applied at
 * once or by break-glass, for a person's request, break-glass, Extend and Undo alike; then random
 * facts (fast-check) against what every filed request must satisfy.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideFiling, type FilingFacts, type FilingOrigin } from '../../../src/core/approval/filing.js';
import type { BreakGlassTerms } from '../../../src/core/policy/breakglass.js';
import { unjustified } from '../../../src/core/policy/justification.js';
import type { PolicyDecision, Requirement } from '../../../src/core/policy/types.js';
import { filingRefusalText } from '../../../src/core/render/filing.js';
import { pendingRequest } from './world.js';

/** Monday 5 January 2026, 12:00 UTC. */
const NOW = Date.UTC(2026, 0, 5, 12);
const TTL_MS = 24 * 3_600_000;
const HOUR = 3_600_000;

const rule = (extra: Partial<Requirement> = {}): Requirement => ({
  rule: 'production',
  approvals: 1,
  approvers: [],
  reasons: ['env=prod'],
  ...extra,
});
/** Open on weekdays 09:00-10:00 UTC: closed at NOW, next open on Tuesday at 09:00. */
const WINDOWED = rule({
  window: { days: ['mon', 'tue', 'wed', 'thu', 'fri'], fromMinute: 540, toMinute: 600, tz: 'UTC' },
});
const TUESDAY_NINE = Date.UTC(2026, 0, 6, 9);
const FROZEN = rule({ freezes: [{ from: '2026-01-01', to: '2026-01-10', reason: 'Year-end freeze' }] });
const ASKS_REASON = rule({ require: { reason: true } });

const approve = (...requirements: Requirement[]): PolicyDecision => ({ kind: 'approve', requirements });
const DENY: PolicyDecision = { kind: 'deny', rule: 'never prod', text: 'Not here.', reasons: [] };
const PERSON: FilingOrigin = { kind: 'person', askedBy: 'command' };
const LISTED: BreakGlassTerms = { list: ['U-REQ'], maxMs: 4 * HOUR, listed: true };

function facts(decision: PolicyDecision, extra: Partial<FilingFacts> = {}): FilingFacts {
  return {
    origin: PERSON,
    id: 'CR-NEW',
    now: NOW,
    ttlMs: TTL_MS,
    ruling: { decision, digest: 'abc' },
    channelId: 'C1',
    userId: 'U-REQ',
    plan: pendingRequest().plan,
    ...extra,
  };
}

const refusalOf = (f: FilingFacts) => {
  const decision = decideFiling(f);
  return decision.kind === 'refused' ? decision.refusal : undefined;
};
const filedOf = (f: FilingFacts) => {
  const decision = decideFiling(f);
  if (decision.kind !== 'file') throw new Error(`refused: ${JSON.stringify(decision.refusal)}`);
  return decision;
};

describe('filing a request under the rules', () => {
  it('files it for approval with the rules it matched, the digest, and the usual time to approve it', () => {
    const { request, next } = filedOf(facts(approve(rule()), { reason: 'why', ticket: 'OPS-1' }));
    expect(next).toEqual({ kind: 'approval' });
    expect(request).toMatchObject({
      id: 'CR-NEW',
      requesterId: 'U-REQ',
      status: 'pending',
      createdAt: NOW,
      expiresAt: NOW + TTL_MS,
      requirements: [rule()],
      policyDigest: 'abc',
      reason: 'why',
      ticket: 'OPS-1',
    });
    expect(request.applyAt).toBeUndefined();
  });

  it('applies at once what no rule asks approval for, naming those rules', () => {
    const none = rule({ rule: 'dev', approvals: 0 });
    expect(filedOf(facts({ kind: 'auto', requirements: [none] })).next).toEqual({ kind: 'auto', rules: ['dev'] });
  });

  it('refuses a deny rule, whoever files it', () => {
    for (const origin of [PERSON, { kind: 'undo', undoOf: 'CR-A' } as const])
      expect(filingRefusalText(refusalOf(facts(DENY, { origin }))!)).toContain('Not here.');
  });

  it('refuses a missing reason in the words of the command or the form; Extend and Undo open a form instead', () => {
    const byCommand = refusalOf(facts(approve(ASKS_REASON)));
    expect(byCommand).toMatchObject({ kind: 'unjustified', askedBy: 'command' });
    expect(filingRefusalText(byCommand!)).toContain('Nothing was requested.');
    expect(refusalOf(facts(approve(ASKS_REASON), { origin: { kind: 'person', askedBy: 'form' } }))).toMatchObject({
      askedBy: 'form',
    });
    for (const origin of [
      { kind: 'extend', extendOf: 'CR-A' },
      { kind: 'undo', undoOf: 'CR-A' },
    ] as const)
      expect(refusalOf(facts(approve(ASKS_REASON), { origin }))).toMatchObject({
        kind: 'ask-in-form',
        asks: [{ rule: 'production', require: { reason: true } }],
      });
  });

  it('refuses a change in a freeze, and defers one outside its window to the next opening', () => {
    expect(refusalOf(facts(approve(FROZEN)))).toMatchObject({ kind: 'frozen', timing: { rule: 'production' } });
    const deferred = filedOf(facts(approve(WINDOWED)));
    expect(deferred.deferred?.at).toBe(TUESDAY_NINE);
    // Deferred past the usual time to approve it: it may be approved until the opening.
    expect(deferred.request).toMatchObject({ applyAt: TUESDAY_NINE, expiresAt: Math.max(TUESDAY_NINE, NOW + TTL_MS) });
  });

  it('an extension deferred would apply after the revert it pushes back: refused instead', () => {
    const origin: FilingOrigin = { kind: 'extend', extendOf: 'CR-A', beneficiaryId: 'U-OWNER' };
    expect(refusalOf(facts(approve(WINDOWED), { origin }))?.kind).toBe('extension-outside-window');
    expect(filedOf(facts(approve(rule()), { origin })).request).toMatchObject({
      extendOf: 'CR-A',
      beneficiaryId: 'U-OWNER',
    });
  });

  it('a time asked (at TIME) is kept and ends the approval window; one already past is no schedule', () => {
    const at = NOW + 2 * HOUR;
    expect(filedOf(facts(approve(rule()), { applyAt: at })).request).toMatchObject({ applyAt: at, expiresAt: at });
    const late = filedOf(facts(approve(rule()), { applyAt: NOW - 1 })).request;
    expect(late.applyAt).toBeUndefined();
    expect(late.expiresAt).toBe(NOW + TTL_MS);
  });
});

describe('filing a break-glass change', () => {
  const breakGlass = (terms: BreakGlassTerms, decision: PolicyDecision, extra: Partial<FilingFacts> = {}) =>
    facts(decision, {
      origin: { kind: 'break-glass', terms },
      reason: 'INC-7',
      temporary: { durationMs: HOUR, remindAfterMs: HOUR / 2 },
      ...extra,
    });

  it('applies it at once, skipping windows and freezes, marked as break-glass', () => {
    const filed = filedOf(breakGlass(LISTED, approve(FROZEN, WINDOWED), { applyAt: NOW + HOUR }));
    expect(filed.next).toEqual({ kind: 'break-glass' });
    expect(filed.request).toMatchObject({ breakGlass: true, expiresAt: NOW + TTL_MS, reason: 'INC-7' });
    expect(filed.request.applyAt).toBeUndefined();
  });

  it('refuses someone not on the list, a missing reason, a deny rule, too long a time', () => {
    expect(refusalOf(breakGlass({ ...LISTED, listed: false }, approve(rule())))).toMatchObject({
      kind: 'break-glass',
      refusal: { kind: 'not-listed' },
    });
    expect(refusalOf(breakGlass(LISTED, approve(rule()), { reason: ' ' }))).toMatchObject({
      refusal: { kind: 'no-reason' },
    });
    expect(refusalOf(breakGlass(LISTED, DENY))).toMatchObject({ refusal: { kind: 'denied' } });
    const tooLong = breakGlass(LISTED, approve(rule()), { temporary: { durationMs: 5 * HOUR, remindAfterMs: HOUR } });
    expect(refusalOf(tooLong)).toMatchObject({ refusal: { kind: 'too-long' } });
  });
});

describe('filing under random facts (fast-check)', () => {
  const requirement = fc
    .record({
      approvals: fc.constantFrom(0, 1, 2),
      reason: fc.boolean(),
      ticket: fc.boolean(),
      windowed: fc.boolean(),
      frozen: fc.boolean(),
    })
    .map((r): Requirement =>
      rule({
        approvals: r.approvals,
        ...(r.reason || r.ticket
          ? { require: { ...(r.reason ? { reason: true as const } : {}), ...(r.ticket ? { ticket: '^OPS-' } : {}) } }
          : {}),
        ...(r.windowed ? { window: WINDOWED.window! } : {}),
        ...(r.frozen ? { freezes: FROZEN.freezes! } : {}),
      }),
    );
  const decision: fc.Arbitrary<PolicyDecision> = fc.oneof(
    fc.constant(DENY),
    fc.array(requirement, { minLength: 1, maxLength: 3 }).map((requirements) => ({
      kind: requirements.every((r) => r.approvals === 0) ? ('auto' as const) : ('approve' as const),
      requirements,
    })),
  );
  const origin: fc.Arbitrary<FilingOrigin> = fc.constantFrom<FilingOrigin>(
    PERSON,
    { kind: 'person', askedBy: 'form' },
    { kind: 'extend', extendOf: 'CR-A', beneficiaryId: 'U-OWNER' },
    { kind: 'undo', undoOf: 'CR-A' },
    { kind: 'break-glass', terms: LISTED },
    { kind: 'break-glass', terms: { ...LISTED, listed: false } },
  );
  const given = fc.record({
    reason: fc.option(fc.constant('why'), { nil: undefined }),
    ticket: fc.option(fc.constantFrom('OPS-1', 'nope'), { nil: undefined }),
    applyAt: fc.option(fc.integer({ min: NOW - HOUR, max: NOW + 72 * HOUR }), { nil: undefined }),
    temporary: fc.option(fc.constant({ durationMs: HOUR, remindAfterMs: HOUR / 2 }), { nil: undefined }),
  });

  it('never files under a deny rule; files only what its rules allow, when they allow it', () => {
    fc.assert(
      fc.property(decision, origin, given, (ruling, from, extra) => {
        const f = facts(ruling, { origin: from, ...extra });
        const decided = decideFiling(f);
        if (ruling.kind === 'deny') {
          expect(decided.kind).toBe('refused');
          return;
        }
        if (decided.kind === 'refused') {
          expect(filingRefusalText(decided.refusal).length).toBeGreaterThan(0);
          return;
        }
        const { request, next } = decided;
        expect(request).toMatchObject({ id: 'CR-NEW', status: 'pending', createdAt: NOW });
        expect(request.requirements).toEqual(ruling.requirements);
        if (from.kind === 'break-glass') {
          // Break-glass: on the list, with a reason and a time; never scheduled, never waiting on a window.
          expect(from.terms.listed && next.kind === 'break-glass' && request.breakGlass).toBe(true);
          expect(request.applyAt).toBeUndefined();
          expect(request.expiresAt).toBe(NOW + TTL_MS);
          return;
        }
        expect(request.breakGlass).toBeUndefined();
        // What the rules ask was given; the time it applies is in the future, within its approval window.
        expect(unjustified(request.requirements ?? [], request)).toBeUndefined();
        if (request.applyAt !== undefined) expect(request.applyAt).toBeGreaterThan(NOW);
        expect(request.expiresAt).toBeGreaterThan(NOW);
        expect(next.kind === 'auto').toBe(ruling.kind === 'auto');
        if (from.kind === 'extend') expect(decided.deferred).toBeUndefined();
      }),
    );
  });
});
