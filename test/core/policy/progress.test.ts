import { describe, expect, it } from 'vitest';
import {
  eligibleFor,
  groupsOf,
  isComplete,
  judgeApproval,
  mayReject,
  ruleProgress,
  stillEligible,
  unmet,
} from '../../../src/core/policy/progress.js';
import type { Approval, Requirement } from '../../../src/core/policy/types.js';

const REQUESTER = 'U0REQ';
const DBAS = 'S0DBAS';
const members = new Map([[DBAS, new Set(['U0BOB', 'U0CAROL', REQUESTER])]]);
const inGroup = (user: string) => (group: string) => members.get(group)?.has(user) ?? false;

const prodTwo: Requirement = { rule: 'prod two', approvals: 2, approvers: [DBAS, 'U0APP1'], reasons: ['env=prod'] };
const security: Requirement = {
  rule: 'security',
  approvals: 1,
  approvers: ['U0SEC', 'U0BOB'],
  reasons: ['changes ip-access'],
};
const logged: Requirement = { rule: 'logged', approvals: 0, approvers: [], reasons: ['every request'] };
const anyone: Requirement = { rule: 'anyone', approvals: 1, approvers: [], reasons: ['every request'] };

const approval = (userId: string, counts: number[], at = 1): Approval => ({ userId, at, counts });

function judge(requirements: Requirement[], approvals: Approval[], user: string) {
  return judgeApproval(requirements, approvals, user, REQUESTER, inGroup(user));
}

describe('eligibility', () => {
  it('counts someone outside the channel for the rules naming them, never for a rule open to anyone in it', () => {
    // A click from the Home tab or a DM by someone not in the request's channel (inChannel false).
    expect(eligibleFor([prodTwo, anyone], 'U0APP1', REQUESTER, inGroup('U0APP1'), false)).toEqual([0]);
    expect(eligibleFor([prodTwo, anyone], 'U0APP1', REQUESTER, inGroup('U0APP1'), true)).toEqual([0, 1]);
    expect(judgeApproval([anyone], [], 'U0DAVE', REQUESTER, inGroup('U0DAVE'), false)).toEqual({
      kind: 'not-eligible',
      requester: false,
    });
    expect(mayReject([anyone], 'U0DAVE', REQUESTER, inGroup('U0DAVE'), false)).toBe(false);
    expect(mayReject([anyone], 'U0DAVE', REQUESTER, inGroup('U0DAVE'))).toBe(true);
  });

  it('counts users listed directly and members of listed groups, never the requester', () => {
    expect(eligibleFor([prodTwo, security], 'U0BOB', REQUESTER, inGroup('U0BOB'))).toEqual([0, 1]);
    expect(eligibleFor([prodTwo, security], 'U0APP1', REQUESTER, inGroup('U0APP1'))).toEqual([0]);
    expect(eligibleFor([prodTwo, security], 'U0SEC', REQUESTER, inGroup('U0SEC'))).toEqual([1]);
    expect(eligibleFor([prodTwo, security], 'U0DAVE', REQUESTER, inGroup('U0DAVE'))).toEqual([]);
    expect(eligibleFor([prodTwo, security], REQUESTER, REQUESTER, inGroup(REQUESTER))).toEqual([]);
  });

  it('an empty list means anyone but the requester; zero-approval rules count nobody', () => {
    expect(eligibleFor([anyone, logged], 'U0DAVE', REQUESTER, inGroup('U0DAVE'))).toEqual([0]);
    expect(eligibleFor([anyone], REQUESTER, REQUESTER, inGroup(REQUESTER))).toEqual([]);
  });

  it('only the default rule with ALLOW_SELF_APPROVAL lets the requester count', () => {
    const selfOk: Requirement = { ...anyone, isDefault: true, selfApproval: true };
    expect(eligibleFor([selfOk], REQUESTER, REQUESTER, inGroup(REQUESTER))).toEqual([0]);
  });

  it('lists the groups whose membership matters', () => {
    expect(groupsOf([prodTwo, security, { ...security, approvers: [DBAS, 'S0OTHER'] }])).toEqual([DBAS, 'S0OTHER']);
  });
});

describe('progress and completion', () => {
  it('one approval counts for every rule its author is eligible for', () => {
    const approvals = [approval('U0BOB', [0, 1], 1)];
    const progress = ruleProgress([prodTwo, security], approvals);
    expect(progress.map((p) => [p.approvedBy, p.missing])).toEqual([
      [['U0BOB'], 1],
      [['U0BOB'], 0],
    ]);
    expect(isComplete([prodTwo, security], approvals)).toBe(false);
    expect(unmet([prodTwo, security], approvals).map((p) => p.requirement.rule)).toEqual(['prod two']);
    expect(isComplete([prodTwo, security], [...approvals, approval('U0CAROL', [0], 2)])).toBe(true);
  });

  it("lists approvers in the order the store recorded them, whatever the clicks' clocks said", () => {
    const progress = ruleProgress([prodTwo], [approval('U0CAROL', [0], 5), approval('U0BOB', [0], 3)]);
    expect(progress[0]?.approvedBy).toEqual(['U0CAROL', 'U0BOB']);
  });

  it('zero-approval rules are met from the start; an approval for one rule does not meet another', () => {
    expect(isComplete([logged], [])).toBe(true);
    expect(isComplete([prodTwo, security], [approval('U0APP1', [0]), approval('U0CAROL', [0])])).toBe(false);
  });

  it('who may still approve: listed users who have not approved, groups, or anyone', () => {
    const [p] = ruleProgress([prodTwo], [approval('U0APP1', [0])]);
    if (!p) throw new Error('progress');
    expect(stillEligible(p, REQUESTER)).toEqual([DBAS]);
    const [q] = ruleProgress([{ ...security, approvers: ['U0SEC', REQUESTER] }], []);
    if (!q) throw new Error('progress');
    expect(stillEligible(q, REQUESTER)).toEqual(['U0SEC']);
    const [r] = ruleProgress([anyone], []);
    if (!r) throw new Error('progress');
    expect(stillEligible(r, REQUESTER)).toBeUndefined();
  });
});

describe('judgeApproval', () => {
  it('counts an eligible click for every rule the person is eligible for', () => {
    expect(judge([prodTwo, security], [], 'U0BOB')).toEqual({ kind: 'counts', counts: [0, 1] });
  });

  it('refuses a second approval by the same person', () => {
    expect(judge([prodTwo, security], [approval('U0BOB', [0, 1])], 'U0BOB')).toEqual({ kind: 'already-approved' });
  });

  it('refuses someone eligible only for rules already met', () => {
    expect(judge([prodTwo, security], [approval('U0BOB', [0, 1])], 'U0SEC')).toEqual({
      kind: 'not-eligible',
      requester: false,
    });
  });

  it('refuses someone on no list, and the requester even when in the group', () => {
    expect(judge([prodTwo], [], 'U0DAVE')).toEqual({ kind: 'not-eligible', requester: false });
    expect(judge([prodTwo], [], REQUESTER)).toEqual({ kind: 'not-eligible', requester: true });
  });

  it('reject is open to anyone eligible for some rule, never to the requester', () => {
    expect(mayReject([prodTwo, security], 'U0SEC', REQUESTER, inGroup('U0SEC'))).toBe(true);
    expect(mayReject([prodTwo], 'U0CAROL', REQUESTER, inGroup('U0CAROL'))).toBe(true);
    expect(mayReject([prodTwo], 'U0DAVE', REQUESTER, inGroup('U0DAVE'))).toBe(false);
    expect(mayReject([anyone], REQUESTER, REQUESTER, inGroup(REQUESTER))).toBe(false);
    expect(mayReject([logged], 'U0DAVE', REQUESTER, inGroup('U0DAVE'))).toBe(false);
  });
});
