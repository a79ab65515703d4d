/** Who may break glass, what refuses it (in order), and who reviews it. */
import { describe, expect, it } from 'vitest';
import { breakGlassRefusal, isListed, REVIEW_RULE, reviewRequirement } from '../../../src/core/policy/breakglass.js';
import type { PolicyDecision, Requirement } from '../../../src/core/policy/types.js';
import { daysText, windowText } from '../../../src/core/render/breakglass.js';

const TERMS = { list: ['S0ONCALL', 'U0ALICE'], maxMs: 4 * 3_600_000, listed: true };
const APPROVE: PolicyDecision = { kind: 'approve', requirements: [] };
const DENY: PolicyDecision = { kind: 'deny', rule: 'never open prod', text: 'No.', reasons: [] };
const ok = { reason: 'INC-7', durationMs: 3_600_000, decision: APPROVE };

describe('breakGlassRefusal', () => {
  it('lets a listed person with a reason and a short enough for through', () => {
    expect(breakGlassRefusal(TERMS, ok)).toBeUndefined();
  });

  it('refuses, in this order: nobody listed, not listed, a deny rule, no reason, no for, too long', () => {
    expect(breakGlassRefusal({ ...TERMS, list: [] }, ok)).toEqual({ kind: 'no-list' });
    expect(breakGlassRefusal({ ...TERMS, listed: false }, { ...ok, decision: DENY })).toMatchObject({
      kind: 'not-listed',
    });
    expect(breakGlassRefusal(TERMS, { ...ok, reason: undefined, decision: DENY })).toMatchObject({ kind: 'denied' });
    expect(breakGlassRefusal(TERMS, { ...ok, reason: '  ' })).toEqual({ kind: 'no-reason' });
    expect(breakGlassRefusal(TERMS, { ...ok, durationMs: undefined })).toMatchObject({ kind: 'no-duration' });
    expect(breakGlassRefusal(TERMS, { ...ok, durationMs: 5 * 3_600_000 })).toMatchObject({ kind: 'too-long' });
    expect(breakGlassRefusal(TERMS, { ...ok, durationMs: 4 * 3_600_000 })).toBeUndefined();
  });

  it('counts users directly and user groups through their members', () => {
    expect(isListed(TERMS.list, 'U0ALICE', () => false)).toBe(true);
    expect(isListed(TERMS.list, 'U0BOB', (group) => group === 'S0ONCALL')).toBe(true);
    expect(isListed(TERMS.list, 'U0BOB', () => false)).toBe(false);
  });
});

describe('reviewRequirement', () => {
  const rule = (name: string, extra: Partial<Requirement>): Requirement => ({
    rule: name,
    approvals: 1,
    approvers: [],
    reasons: [],
    ...extra,
  });

  it('asks one approval from the approvers of the rules that asked for approval, with their reminders', () => {
    const review = reviewRequirement(
      [
        rule('prod', { approvers: ['S0DBAS'], remindMs: 3_600_000, escalate: { afterMs: 7_200_000, to: ['S0LEADS'] } }),
        rule('ips', { approvers: ['U0APP1'], remindMs: 600_000 }),
        rule('dev', { approvals: 0 }),
      ],
      { approvers: ['U0DEFAULT'], allowSelfApproval: true },
    );
    expect(review).toEqual({
      rule: REVIEW_RULE,
      approvals: 1,
      approvers: ['S0DBAS', 'U0APP1'],
      reasons: ['prod', 'ips'],
      remindMs: 600_000,
      escalate: { afterMs: 7_200_000, to: ['S0LEADS'] },
    });
  });

  it('falls back to the default approvers (never self-approval) when no rule asked for approval', () => {
    const review = reviewRequirement([rule('dev', { approvals: 0 })], {
      approvers: ['U0DEFAULT'],
      allowSelfApproval: true,
    });
    expect(review).toMatchObject({ approvers: ['U0DEFAULT'] });
    expect(review.selfApproval).toBeUndefined();
  });
});

describe('window words', () => {
  it('joins runs of three or more days with a dash, from Monday', () => {
    expect(daysText(['mon', 'tue', 'wed', 'thu'])).toBe('Mon–Thu');
    expect(daysText(['mon', 'wed', 'fri'])).toBe('Mon, Wed, Fri');
    expect(daysText(['sat', 'sun'])).toBe('Sat, Sun');
    expect(daysText(['fri', 'sat', 'sun', 'mon'])).toBe('Mon, Fri–Sun');
    expect(daysText(['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'])).toBe('every day');
    expect(windowText({ days: ['mon'], fromMinute: 22 * 60, toMinute: 120, tz: 'America/New_York' })).toBe(
      'Mon 22:00–02:00 New York',
    );
  });
});
