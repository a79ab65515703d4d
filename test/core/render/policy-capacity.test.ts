/**
 * Policies for capacity and power (issue 24): a policy file names the new kinds (replicas, memory,
 * idle-scaling, power) and risks (capacity-down, capacity-up-large, stop, single-replica);
 * `policy SERVICE` lists what each needs, with the risky variants where they differ; and what it
 * says agrees with what a real request for that service would need.
 */
import { kindLines, kindsOfLine } from './policy-lines.js';
import { describe, expect, it } from 'vitest';
import { planChange } from '../../../src/core/change/plan.js';
import type { ChangeIntent } from '../../../src/core/change/types.js';
import { evaluatePolicy } from '../../../src/core/policy/evaluate.js';
import { requestFacts } from '../../../src/core/policy/facts.js';
import { parsePolicy } from '../../../src/core/policy/parse.js';
import { CHANGE_KINDS, RISKS } from '../../../src/core/policy/types.js';
import { servicePolicyBlocks } from '../../../src/core/render/policy.js';
import { ServiceRecordSchema, type ServiceRecord } from '../../../src/core/service/schema.js';
import { demoServices } from '../../../src/simulator/seed.js';
import { DEFAULTS, mustParse } from '../policy/examples.js';
import { assertBlockKitLimits, mrkdwnTexts } from './block-kit.js';

function demo(name: string): ServiceRecord {
  const record = demoServices().find((service) => service.name === name);
  if (record === undefined) throw new Error(`no demo service ${name}`);
  return ServiceRecordSchema.parse(record);
}

const CAPACITY_POLICY = `rules:
  - name: stopping production
    match: { tags: { env: prod }, risks: [stop] }
    approvals: 2
    approvers: [S0DBAS, U0APP1]
  - name: memory costs money
    match: { changes: [memory] }
    approvals: 1
    approvers: [U0FIN]
  - name: no fourfold growth
    match: { risks: [capacity-up-large] }
    deny: Grow capacity in steps; ask the platform team for more.
  - name: idle dev services
    match: { tags: { env: dev }, changes: [idle-scaling] }
    approvals: 0
`;

const policy = mustParse(CAPACITY_POLICY);

function policyText(service: ServiceRecord): string {
  const blocks = servicePolicyBlocks(policy, service, DEFAULTS);
  assertBlockKitLimits(blocks, { max: 50 });
  return mrkdwnTexts(blocks).join('\n');
}

/** The line of one kind with its risky variants (the indented lines under it). */
describe('policy files name the capacity kinds and risks', () => {
  it('knows the new kinds and risks', () => {
    expect(CHANGE_KINDS).toEqual(expect.arrayContaining(['replicas', 'memory', 'idle-scaling', 'power']));
    expect(RISKS).toEqual(expect.arrayContaining(['capacity-down', 'capacity-up-large', 'stop', 'single-replica']));
  });

  it('accepts every one of them in a rule', () => {
    const parsed = parsePolicy(`rules:
  - name: capacity
    match:
      changes: [replicas, memory, idle-scaling, power]
      risks: [capacity-down, capacity-up-large, stop, single-replica]
    approvals: 1
`);
    expect(parsed).toMatchObject({
      ok: true,
      policy: {
        rules: [
          {
            name: 'capacity',
            match: {
              changes: ['replicas', 'memory', 'idle-scaling', 'power'],
              risks: ['capacity-down', 'capacity-up-large', 'stop', 'single-replica'],
            },
            approvals: 1,
          },
        ],
      },
    });
  });

  it('refuses near misses with the list of names it knows', () => {
    const scaling = parsePolicy('rules:\n  - name: r\n    match: { changes: [scaling] }\n    approvals: 1\n');
    expect(scaling.ok ? [] : scaling.problems).toStrictEqual([
      'line 3: rule 1 ("r"): match.changes[0] must be one of name, ip-access, private-endpoints, release-channel, mysql-endpoint, encryption-key, tags, replicas, memory, idle-scaling, power, core-dumps, backup-config, member-role, api-key, delete, upgrade-window, scaling-schedule, query-endpoint, password',
    ]);
    const stopped = parsePolicy('rules:\n  - name: r\n    match: { risks: [stopped] }\n    approvals: 1\n');
    expect(stopped.ok ? [] : stopped.problems).toStrictEqual([
      'line 3: rule 1 ("r"): match.risks[0] must be one of world-open, broad-ip, last-ip-removed, mysql-on, capacity-down, capacity-up-large, stop, single-replica, backup-retention-cut, backup-less-often, admin-grant, key-enable, delete, query-admin, query-any-origin, credential',
    ]);
  });
});

describe('policy SERVICE lists the capacity kinds and their risky variants', () => {
  it('orders-prod (env=prod)', () => {
    const text = policyText(demo('orders-prod'));
    expect(kindLines(text, 'replicas')).toStrictEqual([
      '• `replicas`: 1 from <@U0GLOBAL> (*default: one approval*)',
      '      if it is `capacity-up-large`: refused by *no fourfold growth*',
    ]);
    expect(kindLines(text, 'memory')).toStrictEqual([
      '• `memory`: 1 from <@U0FIN> (*memory costs money*)',
      '      if it is `capacity-up-large`: refused by *no fourfold growth*',
    ]);
    expect(kindLines(text, 'idle-scaling')).toStrictEqual([
      '• `idle-scaling`: 1 from <@U0GLOBAL> (*default: one approval*)',
    ]);
    expect(kindLines(text, 'power')).toStrictEqual([
      '• `power`: 1 from <@U0GLOBAL> (*default: one approval*)',
      '      if it is `stop`: 2 from <!subteam^S0DBAS>, <@U0APP1> (*stopping production*)',
    ]);
  });

  it('sandbox-dev (env=dev): no stop rule, idle scaling needs nobody', () => {
    const text = policyText(demo('sandbox-dev'));
    expect(kindLines(text, 'power')).toStrictEqual(['• `power`: 1 from <@U0GLOBAL> (*default: one approval*)']);
    expect(kindLines(text, 'idle-scaling')).toStrictEqual([
      '• `idle-scaling`: no approval needed (*idle dev services*)',
    ]);
  });

  it('lists every kind, the capacity ones after the older ones', () => {
    const text = policyText(demo('search-prod'));
    const kinds = text.split('\n').flatMap(kindsOfLine);
    expect([...kinds].sort()).toStrictEqual([...CHANGE_KINDS].sort());
  });

  it('without a policy file, every kind needs the default, all on one line (a delete its own two)', () => {
    const blocks = servicePolicyBlocks(undefined, demo('orders-prod'), DEFAULTS);
    const text = mrkdwnTexts(blocks).join('\n');
    expect(text.split('\n').filter((line) => line.startsWith('• '))).toHaveLength(2);
    expect(kindLines(text, 'delete')).toStrictEqual(['• `delete`: 2 from <@U0GLOBAL> (*default: two approvals*)']);
    for (const kind of ['replicas', 'memory', 'idle-scaling', 'power'])
      expect(kindLines(text, kind)).toStrictEqual([`• \`${kind}\`: 1 from <@U0GLOBAL> (*default: one approval*)`]);
  });
});

describe('agrees with what a real request needs', () => {
  function decision(name: string, intent: ChangeIntent) {
    const service = demo(name);
    const result = planChange(service, intent);
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    const facts = requestFacts(service, result.plan);
    return { facts, decision: evaluatePolicy(policy, facts, DEFAULTS) };
  }

  it('stop orders-prod: kind power, risk stop, two approvals', () => {
    const { facts, decision: d } = decision('orders-prod', { power: 'stop' });
    expect(facts.changes).toStrictEqual(['power']);
    expect(facts.risks).toStrictEqual(['stop']);
    expect(d).toMatchObject({
      kind: 'approve',
      requirements: [{ rule: 'stopping production', approvals: 2, approvers: ['S0DBAS', 'U0APP1'] }],
    });
  });

  it('scale orders-prod replicas 6: kind replicas only (the total line is no kind of its own)', () => {
    const { facts, decision: d } = decision('orders-prod', { replicas: { min: 6, max: 6 } });
    expect(facts.changes).toStrictEqual(['replicas']);
    expect(facts.risks).toStrictEqual([]);
    expect(d).toMatchObject({ kind: 'approve', requirements: [{ rule: 'default: one approval' }] });
  });

  it('scale orders-prod memory 8-128: memory, 4× growth, refused', () => {
    const { facts, decision: d } = decision('orders-prod', { replicaMemoryGb: { min: 8, max: 128 } });
    expect(facts.changes).toStrictEqual(['memory']);
    expect(facts.risks).toStrictEqual(['capacity-up-large']);
    expect(d).toMatchObject({ kind: 'deny', rule: 'no fourfold growth' });
  });

  it('scale orders-prod memory 16-64: memory needs finance', () => {
    const { decision: d } = decision('orders-prod', { replicaMemoryGb: { min: 16, max: 64 } });
    expect(d).toMatchObject({ kind: 'approve', requirements: [{ rule: 'memory costs money', approvers: ['U0FIN'] }] });
  });

  it('idle sandbox-dev on after 30m: no approval needed', () => {
    const { facts, decision: d } = decision('sandbox-dev', { idleScaling: { enabled: true, timeoutMinutes: 30 } });
    expect(facts.changes).toStrictEqual(['idle-scaling']);
    expect(d.kind).toBe('auto');
  });
});
