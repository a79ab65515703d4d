/** What the rules in force ask at apply time, against what a request was made under (issue 22, point 3). */
import { describe, expect, it } from 'vitest';
import { defaultRequirement, rulesGrown } from '../../../src/core/policy/evaluate.js';
import type { Requirement } from '../../../src/core/policy/types.js';

const rule = (name: string, approvals: number): Requirement => ({ rule: name, approvals, approvers: [], reasons: [] });
const fallback = defaultRequirement({ approvers: [], allowSelfApproval: false });

describe('rulesGrown', () => {
  it('a rule asking more, or a new rule, grows', () => {
    expect(rulesGrown([rule('dev', 0)], { kind: 'approve', requirements: [rule('prod', 2)] })).toEqual({
      kind: 'rules-grew',
      rules: ['prod'],
    });
    expect(rulesGrown([rule('prod', 1)], { kind: 'approve', requirements: [rule('prod', 2)] })).toMatchObject({
      rules: ['prod'],
    });
  });

  it('fewer rules matching (the default standing in) does not grow', () => {
    expect(rulesGrown([rule('prod needs two', 2)], { kind: 'approve', requirements: [fallback] })).toBeUndefined();
  });

  it('a request made under the default compares the default like any rule', () => {
    expect(rulesGrown([fallback], { kind: 'approve', requirements: [fallback] })).toBeUndefined();
    expect(rulesGrown([fallback], { kind: 'approve', requirements: [rule('prod', 2)] })).toMatchObject({
      rules: ['prod'],
    });
  });

  it('a deny now matching is said with its rule and text', () => {
    expect(
      rulesGrown([rule('dev', 0)], { kind: 'deny', rule: 'never prod', text: 'No.', reasons: ['env=prod'] }),
    ).toEqual({ kind: 'denied-now', rule: 'never prod', text: 'No.' });
  });
});
