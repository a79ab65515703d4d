import { describe, expect, it } from 'vitest';
import { DEFAULT_RULE_NAME, evaluatePolicy } from '../../../src/core/policy/evaluate.js';
import { DEFAULTS, EXAMPLE_POLICY, facts, mustParse } from './examples.js';

const example = mustParse(EXAMPLE_POLICY);

describe('evaluatePolicy with the issue example', () => {
  it('production needs two DBAs, with the reason', () => {
    expect(evaluatePolicy(example, facts({ tags: { env: 'prod' } }), DEFAULTS)).toEqual({
      kind: 'approve',
      requirements: [
        { rule: 'production needs two DBAs', approvals: 2, approvers: ['S0DBAS', 'U0APP1'], reasons: ['env=prod'] },
      ],
    });
  });

  it('deny wins over everything else, with its text', () => {
    const decision = evaluatePolicy(
      example,
      facts({ tags: { env: 'prod' }, changes: ['ip-access'], risks: ['world-open'] }),
      DEFAULTS,
    );
    expect(decision).toEqual({
      kind: 'deny',
      rule: 'never open production to the internet',
      text: 'Production is never opened to the whole internet; attach a private endpoint instead.',
      reasons: ['env=prod', 'risk world-open'],
    });
  });

  it('removing env=prod while opening to the world is still refused', () => {
    const decision = evaluatePolicy(
      example,
      facts({ tags: { env: 'prod' }, tagsAfter: {}, changes: ['tags', 'ip-access'], risks: ['world-open'] }),
      DEFAULTS,
    );
    expect(decision.kind).toBe('deny');
  });

  it('dev IP adds need nobody', () => {
    expect(evaluatePolicy(example, facts({ tags: { env: 'dev' }, changes: ['ip-access'] }), DEFAULTS)).toMatchObject({
      kind: 'auto',
      requirements: [{ rule: 'developers add their own IPs to dev services', approvals: 0 }],
    });
  });

  it('no rule matching means the default: one approval from APPROVERS', () => {
    const decision = evaluatePolicy(example, facts({ tags: { env: 'dev' }, changes: ['name'] }), DEFAULTS);
    expect(decision).toEqual({
      kind: 'approve',
      requirements: [
        {
          rule: DEFAULT_RULE_NAME,
          approvals: 1,
          approvers: ['U0GLOBAL'],
          reasons: ['no policy rule matches'],
          isDefault: true,
        },
      ],
    });
  });

  it('without a policy file every request gets the default, self-approval as configured', () => {
    expect(
      evaluatePolicy(undefined, facts({ tags: { env: 'prod' } }), { approvers: [], allowSelfApproval: true }),
    ).toEqual({
      kind: 'approve',
      requirements: [
        {
          rule: DEFAULT_RULE_NAME,
          approvals: 1,
          approvers: [],
          reasons: ['no policy rule matches'],
          isDefault: true,
          selfApproval: true,
        },
      ],
    });
  });
});

describe('evaluatePolicy: combining rules', () => {
  const policy = mustParse(`rules:
  - name: prod two
    match: { tags: { env: prod } }
    approvals: 2
    approvers: [S0DBAS]
  - name: security for ip
    match: { changes: [ip-access] }
    approvals: 1
    approvers: [U0SEC1, U0SEC2]
  - name: dev free
    match: { tags: { env: dev } }
    approvals: 0
  - name: everything logged
    match: {}
    approvals: 0
  - name: no mysql
    match: { risks: [mysql-on] }
    deny: Not MySQL.
  - name: no world
    match: { risks: [world-open] }
    deny: Not the world.
`);

  it('every matching rule is a requirement, in file order, zero-approval ones included', () => {
    const decision = evaluatePolicy(policy, facts({ tags: { env: 'prod' }, changes: ['ip-access'] }), DEFAULTS);
    expect(decision).toMatchObject({
      kind: 'approve',
      requirements: [
        { rule: 'prod two', approvals: 2, approvers: ['S0DBAS'] },
        { rule: 'security for ip', approvals: 1, approvers: ['U0SEC1', 'U0SEC2'] },
        { rule: 'everything logged', approvals: 0, approvers: ['U0GLOBAL'] },
      ],
    });
  });

  it('zero-approval applies only when every matching rule agrees', () => {
    expect(evaluatePolicy(policy, facts({ tags: { env: 'dev' }, changes: ['name'] }), DEFAULTS).kind).toBe('auto');
    expect(evaluatePolicy(policy, facts({ tags: { env: 'dev' }, changes: ['ip-access'] }), DEFAULTS)).toMatchObject({
      kind: 'approve',
      requirements: [{ rule: 'security for ip', approvals: 1 }, { rule: 'dev free' }, { rule: 'everything logged' }],
    });
  });

  it('the first matching deny in file order gives the text', () => {
    expect(evaluatePolicy(policy, facts({ risks: ['world-open', 'mysql-on'] }), DEFAULTS)).toMatchObject({
      kind: 'deny',
      rule: 'no mysql',
      text: 'Not MySQL.',
    });
  });

  it('a rule without approvers takes APPROVERS, which may be empty (anyone)', () => {
    const open = mustParse('rules:\n  - name: one\n    match: {}\n    approvals: 1\n');
    expect(evaluatePolicy(open, facts(), { approvers: [], allowSelfApproval: true })).toEqual({
      kind: 'approve',
      requirements: [{ rule: 'one', approvals: 1, approvers: [], reasons: ['every request'] }],
    });
  });

  it('an empty rule list is the default for everything', () => {
    expect(evaluatePolicy(mustParse('rules: []\n'), facts(), DEFAULTS)).toMatchObject({
      kind: 'approve',
      requirements: [{ isDefault: true }],
    });
  });
});
