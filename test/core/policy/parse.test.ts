import { describe, expect, it } from 'vitest';
import { MAX_APPROVALS, MAX_POLICY_BYTES, parsePolicy } from '../../../src/core/policy/parse.js';
import { EXAMPLE_POLICY } from './examples.js';

function problemsOf(text: string): string[] {
  const parsed = parsePolicy(text);
  if (parsed.ok) throw new Error('expected problems');
  return parsed.problems;
}

const rule = (body: string) => `rules:\n  - name: r\n${body.replace(/^/gm, '    ')}\n`;

describe('parsePolicy: the issue example', () => {
  it('reads the three rules with their effects, approvers and lines', () => {
    const parsed = parsePolicy(EXAMPLE_POLICY);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.policy.rules).toEqual([
      {
        name: 'production needs two DBAs',
        match: { tags: { env: 'prod' } },
        line: 2,
        effect: 'approve',
        approvals: 2,
        approvers: ['S0DBAS', 'U0APP1'],
      },
      {
        name: 'never open production to the internet',
        match: { tags: { env: 'prod' }, risks: ['world-open'] },
        line: 7,
        effect: 'deny',
        deny: 'Production is never opened to the whole internet; attach a private endpoint instead.',
      },
      {
        name: 'developers add their own IPs to dev services',
        match: { tags: { env: 'dev' }, changes: ['ip-access'] },
        line: 10,
        effect: 'approve',
        approvals: 0,
      },
    ]);
    expect(parsed.policy.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('gives the same digest for the same bytes and another for any other', () => {
    const a = parsePolicy(EXAMPLE_POLICY);
    const b = parsePolicy(EXAMPLE_POLICY);
    const c = parsePolicy(`${EXAMPLE_POLICY}# a comment\n`);
    if (!a.ok || !b.ok || !c.ok) throw new Error('parse');
    expect(a.policy.digest).toBe(b.policy.digest);
    expect(c.policy.digest).not.toBe(a.policy.digest);
  });

  it('accepts an empty rule list (the default for every request), an empty match, "*" tags and scalar tag values', () => {
    expect(parsePolicy('rules: []\n')).toMatchObject({ ok: true, policy: { rules: [] } });
    const parsed = parsePolicy(
      rule('match: { tags: { team: "*", tier: 2, pii: true }, services: [orders, a1b2] }\napprovals: 1'),
    );
    expect(parsed).toMatchObject({
      ok: true,
      policy: {
        rules: [{ match: { tags: { team: '*', tier: '2', pii: 'true' }, services: ['orders', 'a1b2'] }, approvals: 1 }],
      },
    });
    expect(parsePolicy(rule('match: {}\napprovals: 1'))).toMatchObject({
      ok: true,
      policy: { rules: [{ match: {} }] },
    });
  });

  it('drops repeated approvers, changes and risks', () => {
    const parsed = parsePolicy(
      rule('match: { changes: [name, name], risks: [mysql-on, mysql-on] }\napprovals: 1\napprovers: [U0A, U0A, S0B]'),
    );
    expect(parsed).toMatchObject({
      ok: true,
      policy: { rules: [{ match: { changes: ['name'], risks: ['mysql-on'] }, approvers: ['U0A', 'S0B'] }] },
    });
  });
});

describe('parsePolicy: every problem, with its line', () => {
  it('YAML syntax errors carry the line and stop there', () => {
    expect(problemsOf('rules: [ {name: x, match: {}, approvals: 1}')).toEqual([expect.stringMatching(/^line 1: .*\]/)]);
    expect(problemsOf('rules:\n  - name: x\n    name: y\n')).toEqual(['line 3: Map keys must be unique']);
    expect(problemsOf('rules:\n  - name: x\n   bad: indent\n')[0]).toMatch(/^line \d+: /);
  });

  it('an empty file, a non-map file and a missing rules key', () => {
    expect(problemsOf('')).toEqual(['The policy file is empty: it needs a rules: list (see the README).']);
    expect(problemsOf('# only a comment\n')).toEqual([
      'The policy file is empty: it needs a rules: list (see the README).',
    ]);
    expect(problemsOf('- a\n')).toEqual(['line 1: The policy file must be a map with a rules: list']);
    expect(problemsOf('foo: 1\n')).toEqual([
      'line 1: rules is missing: the file needs a rules: list',
      'line 1: unknown key "foo" (allowed here: rules, breakglass, breakglass_max)',
    ]);
    expect(problemsOf('rules: 3\n')).toEqual([
      'line 1: rules must be a list of rules (each starting with "- name: …")',
    ]);
  });

  it('a rule that is not a map, has no name, no match, or an empty name', () => {
    expect(problemsOf('rules:\n  - 3\n')).toEqual([
      'line 2: rule 1: the rule must be a map with name, match and either approvals or deny',
    ]);
    expect(problemsOf('rules:\n  - match: {}\n    approvals: 1\n')).toEqual([
      'line 2: rule 1: name is required: a short name people will see in requests and the audit',
    ]);
    expect(problemsOf('rules:\n  - name: x\n    approvals: 1\n')).toEqual([
      'line 2: rule 1 ("x"): match is missing (use match: {} to match every request)',
    ]);
    expect(problemsOf('rules:\n  - name: "  "\n    match: {}\n    approvals: 1\n')).toEqual([
      'line 2: rule 1: name must not be empty',
    ]);
    expect(problemsOf(`rules:\n  - name: ${'n'.repeat(201)}\n    match: {}\n    approvals: 1\n`)[0]).toMatch(
      /^line 2: .*name must be at most 200 characters/,
    );
  });

  it('neither approvals nor deny, both, or approvers where they mean nothing', () => {
    expect(problemsOf(rule('match: {}'))).toEqual([
      'line 2: rule 1 ("r"): the rule needs either approvals (0 or more) or deny (the sentence shown when it refuses)',
    ]);
    expect(problemsOf(rule('match: {}\napprovals: 1\ndeny: no'))).toEqual([
      'line 5: rule 1 ("r"): deny and approvals cannot be in one rule: a rule either refuses (deny) or asks for approvals',
    ]);
    expect(problemsOf(rule('match: {}\ndeny: no\napprovers: [U0A]'))).toEqual([
      'line 5: rule 1 ("r"): approvers has no effect in a deny rule',
    ]);
    expect(problemsOf(rule('match: {}\napprovals: 0\napprovers: [U0A]'))).toEqual([
      'line 5: rule 1 ("r"): approvers has no effect with approvals: 0',
    ]);
    expect(problemsOf(rule('match: {}\ndeny: "  "'))).toEqual([
      'line 4: rule 1 ("r"): deny must be the sentence shown to the requester',
    ]);
    expect(problemsOf(rule('match: {}\ndeny: [a]'))).toEqual([
      'line 4: rule 1 ("r"): deny must be the sentence shown to the requester',
    ]);
  });

  it('approvals that are not a whole number in range, or more than the listed people can give', () => {
    for (const value of ['-1', '2.5', 'two', '"2"', 'null']) {
      expect(problemsOf(rule(`match: {}\napprovals: ${value}`))).toEqual([
        `line 4: rule 1 ("r"): approvals must be a whole number from 0 to ${MAX_APPROVALS}`,
      ]);
    }
    expect(problemsOf(rule(`match: {}\napprovals: ${MAX_APPROVALS + 1}`))).toEqual([
      `line 4: rule 1 ("r"): approvals must be at most ${MAX_APPROVALS}`,
    ]);
    expect(problemsOf(rule('match: {}\napprovals: 3\napprovers: [U0A, U0B, U0A]'))).toEqual([
      'line 4: rule 1 ("r"): approvals asks for 3 approvals but approvers lists only 2 different people, so no request could ever be approved',
    ]);
    // A group can hold any number of people, so it is not counted.
    expect(parsePolicy(rule('match: {}\napprovals: 3\napprovers: [U0A, S0B]')).ok).toBe(true);
  });

  it('approvers that are not Slack ids, or an empty list', () => {
    expect(problemsOf(rule('match: {}\napprovals: 1\napprovers: [alice, U0A, "<!channel>"]'))).toEqual([
      'line 5: rule 1 ("r"): approvers[0] must be a Slack user id (U…) or user group id (S…)',
      'line 5: rule 1 ("r"): approvers[2] must be a Slack user id (U…) or user group id (S…)',
    ]);
    expect(problemsOf(rule('match: {}\napprovals: 1\napprovers: []'))).toEqual([
      'line 5: rule 1 ("r"): approvers must not be empty (leave the key out to use APPROVERS)',
    ]);
    expect(problemsOf(rule('match: {}\napprovals: 1\napprovers: U0A'))).toEqual([
      'line 5: rule 1 ("r"): approvers must be a list of Slack user or user group ids, like [S0DBAS, U0APP1]',
    ]);
  });

  it('match keys: unknown ones, unknown kinds and risks, empty lists, bad tags', () => {
    expect(problemsOf(rule('match: { tag: { env: prod } }\napprovals: 1'))).toEqual([
      'line 3: rule 1 ("r"): unknown key "tag" (allowed here: tags, services, changes, risks)',
    ]);
    expect(problemsOf(rule('match: { changes: [ip] }\napprovals: 1'))).toEqual([
      'line 3: rule 1 ("r"): match.changes[0] must be one of name, ip-access, private-endpoints, release-channel, mysql-endpoint, encryption-key, tags, replicas, memory, idle-scaling, power, core-dumps, backup-config, member-role, api-key, delete, upgrade-window, scaling-schedule, query-endpoint, password',
    ]);
    expect(problemsOf(rule('match: { risks: [open] }\napprovals: 1'))).toEqual([
      'line 3: rule 1 ("r"): match.risks[0] must be one of world-open, broad-ip, last-ip-removed, mysql-on, capacity-down, capacity-up-large, stop, single-replica, backup-retention-cut, backup-less-often, admin-grant, key-enable, delete, query-admin, query-any-origin, credential',
    ]);
    expect(problemsOf(rule('match: { risks: [] }\napprovals: 1'))).toEqual([
      'line 3: rule 1 ("r"): match.risks must not be empty (leave the key out to match any)',
    ]);
    expect(problemsOf(rule('match: { services: [] }\napprovals: 1'))).toEqual([
      'line 3: rule 1 ("r"): match.services must not be empty (leave the key out to match any)',
    ]);
    expect(problemsOf(rule('match: { changes: ip-access }\napprovals: 1'))).toEqual([
      'line 3: rule 1 ("r"): match.changes must be a list of change kinds, like [ip-access]',
    ]);
    expect(problemsOf(rule('match: { tags: {} }\napprovals: 1'))).toEqual([
      'line 3: rule 1 ("r"): match.tags must name at least one tag (leave the key out to match any)',
    ]);
    expect(problemsOf(rule('match: { tags: [env] }\napprovals: 1'))).toEqual([
      'line 3: rule 1 ("r"): match.tags must map tag keys to values, like { env: prod }',
    ]);
    expect(problemsOf(rule('match: { tags: { "bad key": x } }\napprovals: 1'))).toEqual([
      'line 3: rule 1 ("r"): match.tags.bad key is not a tag key (letters, digits, . _ -)',
    ]);
    expect(problemsOf(rule('match:\n  tags:\n    env:\napprovals: 1'))).toEqual([
      'line 5: rule 1 ("r"): match.tags.env must be a value, or "*" for any value',
    ]);
    expect(problemsOf(rule('match: all\napprovals: 1'))).toEqual([
      'line 3: rule 1 ("r"): match must be a map with tags, services, changes or risks (use {} to match every request)',
    ]);
  });

  it('checks across keys even when a field of the same rule is wrong', () => {
    expect(problemsOf(rule('match: { risks: [open-world] }\napprovals: 1\ndeny: no'))).toEqual([
      'line 3: rule 1 ("r"): match.risks[0] must be one of world-open, broad-ip, last-ip-removed, mysql-on, capacity-down, capacity-up-large, stop, single-replica, backup-retention-cut, backup-less-often, admin-grant, key-enable, delete, query-admin, query-any-origin, credential',
      'line 5: rule 1 ("r"): deny and approvals cannot be in one rule: a rule either refuses (deny) or asks for approvals',
    ]);
    expect(problemsOf(rule('match: { changes: [x] }\napprovals: 3\napprovers: [U0A, 5]'))).toEqual([
      'line 3: rule 1 ("r"): match.changes[0] must be one of name, ip-access, private-endpoints, release-channel, mysql-endpoint, encryption-key, tags, replicas, memory, idle-scaling, power, core-dumps, backup-config, member-role, api-key, delete, upgrade-window, scaling-schedule, query-endpoint, password',
      'line 4: rule 1 ("r"): approvals asks for 3 approvals but approvers lists only 1 person, so no request could ever be approved',
      'line 5: rule 1 ("r"): approvers[1] must be a Slack user id (U…) or user group id (S…)',
    ]);
    expect(problemsOf(rule('match: 7'))).toEqual(
      [
        'line 3: rule 1 ("r"): match must be a map with tags, services, changes or risks (use {} to match every request)',
        'line 2: rule 1 ("r"): the rule needs either approvals (0 or more) or deny (the sentence shown when it refuses)',
      ].sort((x, y) => Number(/line (\d+)/.exec(x)?.[1]) - Number(/line (\d+)/.exec(y)?.[1])),
    );
  });

  it('unknown rule keys point at the key', () => {
    expect(problemsOf(rule('match: {}\napprovals: 1\n\napprover: [U0A]'))).toEqual([
      'line 6: rule 1 ("r"): unknown key "approver" (allowed here: name, match, approvals, approvers, deny, remind, escalate, channel, notify, require, window, freeze)',
    ]);
  });

  it('two rules with one name', () => {
    expect(
      problemsOf(
        'rules:\n  - name: same\n    match: {}\n    approvals: 1\n  - name: same\n    match: {}\n    approvals: 2\n',
      ),
    ).toEqual([
      'line 5: rule 2 ("same"): name is already used by rule 1; each rule needs its own name, as requests and the audit name rules',
    ]);
  });

  it('reports a repeated name even when the file has other problems too', () => {
    expect(
      problemsOf(
        'rules:\n  - name: same\n    match: {}\n    approvals: one\n  - name: same\n    match: {}\n    approvals: 2\n',
      ),
    ).toEqual([
      'line 4: rule 1 ("same"): approvals must be a whole number from 0 to 10',
      'line 5: rule 2 ("same"): name is already used by rule 1; each rule needs its own name, as requests and the audit name rules',
    ]);
  });

  it('lists every problem of every rule at once, in line order', () => {
    const problems = problemsOf(`rules:
  - name: a
    match: { changes: [ip] }
    approvals: 11
  - name: b
    match: {}
  - name: c
    match: { risks: [nope] }
    deny: x
    extra: 1
`);
    expect(problems.map((p) => /^line (\d+)/.exec(p)?.[1])).toEqual(['3', '4', '5', '8', '10']);
  });

  it('refuses a file too large to be a policy, and alias bombs', () => {
    expect(problemsOf(`rules: []\n#${'x'.repeat(MAX_POLICY_BYTES)}\n`)).toEqual([
      expect.stringContaining(`the limit is ${MAX_POLICY_BYTES}`),
    ]);
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      ...Array.from(
        { length: 8 },
        (_, i) => `${'bcdefghi'[i]}: &${'bcdefghi'[i]} [${Array(10).fill(`*${'abcdefgh'[i]}`).join(', ')}]`,
      ),
      'rules: []',
    ].join('\n');
    expect(problemsOf(bomb)[0]).toMatch(/could not be read|alias/i);
  });
});
