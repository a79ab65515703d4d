import { kindLines } from './policy-lines.js';
import { describe, expect, it } from 'vitest';
import { evaluatePolicy } from '../../../src/core/policy/evaluate.js';
import { requestFacts } from '../../../src/core/policy/facts.js';
import type { PolicyDecision, Requirement } from '../../../src/core/policy/types.js';
import { changeRequestBlocks, outcomeText, pendingBlocks } from '../../../src/core/render/change.js';
import { requirementsAuditText } from '../../../src/core/policy/audit.js';
import {
  deniedText,
  notEligibleText,
  policyBlocks,
  progressLines,
  servicePolicyBlocks,
  unjustifiedFieldErrors,
  unjustifiedText,
} from '../../../src/core/render/policy.js';
import { DEFAULTS, EXAMPLE_POLICY, mustParse } from '../policy/examples.js';
import { changeRequest, mustPlan, NOW, service } from '../fixtures.js';
import { assertBlockKitLimits, assertSafeMrkdwn, mrkdwnTexts } from './block-kit.js';

const example = mustParse(EXAMPLE_POLICY);
const prodTwo: Requirement = {
  rule: 'production needs two DBAs',
  approvals: 2,
  approvers: ['S0DBAS', 'U0APP1'],
  reasons: ['env=prod'],
};
const security: Requirement = { rule: 'security', approvals: 1, approvers: [], reasons: ['changes ip-access'] };
const renamePlan = () => mustPlan(service(), { name: 'orders-main' });

describe('the request message shows rules and progress', () => {
  it('says which rules apply and why, who approved, how many more and from whom', () => {
    const request = changeRequest(renamePlan(), {
      requirements: [prodTwo, security],
      approvals: [{ userId: 'U0BOB', at: NOW, counts: [0, 1] }],
    });
    expect(progressLines(request, [prodTwo, security])).toEqual([
      ':hourglass: *production needs two DBAs* (env=prod): 1 of 2 approvals · approved by <@U0BOB> · 1 more from <!subteam^S0DBAS>, <@U0APP1>',
      ':white_check_mark: *security* (changes ip-access): 1 of 1 approval · approved by <@U0BOB>',
    ]);
    const blocks = changeRequestBlocks(request);
    assertBlockKitLimits(blocks, { max: 50 });
    expect(mrkdwnTexts(blocks).join('\n')).toContain('*Approval rules*\n:hourglass: *production needs two DBAs*');
    expect(blocks.at(-1)?.type).toBe('actions');
  });

  it('says "anyone" for rules without a list and names nobody when the list is used up', () => {
    const onlyApp: Requirement = {
      rule: 'app',
      approvals: 2,
      approvers: ['U0APP1', 'U0REQUESTER'],
      reasons: ['every request'],
    };
    const request = changeRequest(renamePlan(), { requirements: [security, onlyApp] });
    const [anyone, stuck] = progressLines(request, [security, onlyApp]);
    expect(anyone).toContain('1 more from anyone in the channel but the requester');
    expect(stuck).toContain('2 more from <@U0APP1>');
  });

  it('shows who approved once decided, without asking for more', () => {
    const request = changeRequest(renamePlan(), {
      status: 'applied',
      decidedBy: 'U0CAROL',
      decidedAt: NOW,
      requirements: [prodTwo],
      approvals: [
        { userId: 'U0BOB', at: 1, counts: [0] },
        { userId: 'U0CAROL', at: 2, counts: [0] },
      ],
    });
    const text = mrkdwnTexts(changeRequestBlocks(request)).join('\n');
    expect(text).toContain(':white_check_mark: *Applied.* Approved by <@U0BOB>, <@U0CAROL>');
    expect(text).not.toContain('more from');
  });

  it('names the rule when nothing needed approval', () => {
    const rule: Requirement = { rule: 'dev <!channel> free', approvals: 0, approvers: [], reasons: ['env=dev'] };
    const request = changeRequest(renamePlan(), {
      status: 'applied',
      decidedBy: 'U0REQUESTER',
      decidedAt: NOW,
      requirements: [rule],
    });
    expect(outcomeText(request)).toContain('No approval needed (*dev &lt;!channel&gt; free*)');
    assertSafeMrkdwn(changeRequestBlocks(request), ['U0REQUESTER']);
  });

  it('pending lists progress', () => {
    const request = changeRequest(renamePlan(), {
      requirements: [prodTwo],
      approvals: [{ userId: 'U0BOB', at: 1, counts: [0] }],
    });
    expect(mrkdwnTexts(pendingBlocks([request])).join('\n')).toContain(
      '1 approval so far (production needs two DBAs: 1 more)',
    );
  });

  it('escapes rule names and reasons that come from the file', () => {
    const hostile: Requirement = {
      rule: '<!channel> *bold* @here',
      approvals: 1,
      approvers: ['U0A'],
      reasons: ['env=<http://x|y>'],
    };
    const request = changeRequest(renamePlan(), { requirements: [hostile] });
    assertSafeMrkdwn(changeRequestBlocks(request), ['U0REQUESTER', 'U0A']);
    assertSafeMrkdwn(pendingBlocks([request]), ['U0REQUESTER']);
  });
});

describe('answers about policy decisions', () => {
  it('a deny shows the rule text, the rule and why', () => {
    const decision: Extract<PolicyDecision, { kind: 'deny' }> = {
      kind: 'deny',
      rule: 'no world',
      text: 'Never <!everyone>.',
      reasons: ['env=prod', 'risk world-open'],
    };
    expect(deniedText(decision)).toBe(
      ':no_entry: Never &lt;!everyone&gt;.\n_Refused by the policy rule *no world* (env=prod, risk world-open). Nothing was requested._',
    );
  });

  it('an ineligible click is told who can approve what is missing', () => {
    const request = changeRequest(renamePlan(), {
      requirements: [prodTwo, security],
      approvals: [{ userId: 'U0BOB', at: 1, counts: [0, 1] }],
    });
    expect(notEligibleText(request, [prodTwo, security], false)).toBe(
      'Your approval would not count for any rule this request still needs. Still needed: 1 more for *production needs two DBAs* from <!subteam^S0DBAS>, <@U0APP1>.',
    );
    expect(notEligibleText(request, [prodTwo, security], true)).toContain(
      'You asked for this change, so someone else has to approve it.',
    );
  });

  it('the audit text names the rules in force and the file digest', () => {
    expect(requirementsAuditText([prodTwo, { ...security, approvals: 0 }], 'abc')).toBe(
      'Rules: production needs two DBAs: 2 approvals (env=prod); security: no approval (changes ip-access). Policy sha256 abc.',
    );
  });
});

describe('/clickhouse policy', () => {
  it('lists the loaded rules in order with their match and effect', () => {
    const blocks = policyBlocks(example, DEFAULTS);
    assertBlockKitLimits(blocks, { max: 50 });
    const text = mrkdwnTexts(blocks).join('\n');
    expect(text).toContain(
      '1. *production needs two DBAs*: when env=prod, needs 2 approvals from <!subteam^S0DBAS>, <@U0APP1>',
    );
    expect(text).toContain(
      '2. *never open production to the internet*: when env=prod, risk world-open, refuses: _Production is never opened',
    );
    expect(text).toContain(
      '3. *developers add their own IPs to dev services*: when env=dev, changes ip-access, needs no approval',
    );
    expect(text).toContain('When no rule matches: one approval from <@U0GLOBAL> (more for `delete`: 2).');
    expect(text).toContain(example.digest.slice(0, 16));
  });

  it('says so when no policy is loaded', () => {
    expect(mrkdwnTexts(policyBlocks(undefined, { approvers: [], allowSelfApproval: false })).join('\n')).toBe(
      'No policy file is loaded (POLICY_FILE is unset). When no rule matches: one approval from anyone in the channel but the requester (more for `delete`: 2).',
    );
  });

  it('keeps 500 rules with long names within Slack limits, counting the hidden ones', () => {
    const yaml = `rules:\n${Array.from({ length: 500 }, (_, i) => `  - name: rule ${i} ${'x'.repeat(150)}\n    match: { services: [s${i}] }\n    approvals: 1\n`).join('')}`;
    const blocks = policyBlocks(mustParse(yaml), DEFAULTS);
    assertBlockKitLimits(blocks, { max: 50 });
    const text = mrkdwnTexts(blocks).join('\n');
    const shown = (text.match(/^\d+\. /gm) ?? []).length;
    expect(shown + Number(/…and (\d+) more rules/.exec(text)?.[1] ?? 0)).toBe(500);
  });

  it('for one service, shows what each kind of change needs, and what risks add', () => {
    const blocks = servicePolicyBlocks(example, service({ tags: [{ key: 'env', value: 'prod' }] }), DEFAULTS);
    assertBlockKitLimits(blocks, { max: 50 });
    const text = mrkdwnTexts(blocks).join('\n');
    expect(kindLines(text, 'name')).toStrictEqual([
      '• `name`: 2 from <!subteam^S0DBAS>, <@U0APP1> (*production needs two DBAs*)',
    ]);
    expect(kindLines(text, 'ip-access').join('\n')).toContain(
      '• `ip-access`: 2 from <!subteam^S0DBAS>, <@U0APP1> (*production needs two DBAs*)\n      if it is `world-open`: refused by *never open production to the internet*',
    );
    // Kinds that need the same share one line.
    expect(text).toMatch(/^• `name`, `private-endpoints`, `release-channel`.*: 2 from/mu);
    expect(text).toContain('· tags `env=prod`');
    const dev = mrkdwnTexts(
      servicePolicyBlocks(example, service({ tags: [{ key: 'env', value: 'dev' }] }), DEFAULTS),
    ).join('\n');
    expect(kindLines(dev, 'ip-access')[0]).toBe(
      '• `ip-access`: no approval needed (*developers add their own IPs to dev services*)',
    );
    expect(kindLines(dev, 'name')[0]).toBe('• `name`: 1 from <@U0GLOBAL> (*default: one approval*)');
  });

  it('agrees with what a real request would need', () => {
    const svc = service({ tags: [{ key: 'env', value: 'dev' }] });
    const decision = evaluatePolicy(
      example,
      requestFacts(svc, mustPlan(svc, { ipAdd: [{ source: '192.0.2.1' }] })),
      DEFAULTS,
    );
    expect(decision.kind).toBe('auto');
  });
});

describe('a missing reason or ticket, in words', () => {
  const rule = 'prod *needs* <!here>';
  it('names the rule (escaped) and says what to add, in the command or the form', () => {
    const reason = unjustifiedText({ reason: { rule } }, 'command');
    expect(reason).toContain('The policy rule *prod ∗needs∗ &lt;!here&gt;* asks for a reason with this change.');
    expect(reason).toContain('because "why this change"');
    expect(reason).toContain('Nothing was requested.');
    expect(unjustifiedText({ reason: { rule: 'r' } }, 'form')).toContain('Fill in the Reason field.');
    const ticket = { rules: ['r'], patterns: ['^A-[0-9]+$'] };
    expect(unjustifiedText({ ticket }, 'form')).toBe(
      ':no_entry: The policy rule *r* asks for a ticket like `A-123` with this change. Fill in the Ticket field. Nothing was requested.',
    );
    expect(unjustifiedText({ ticket: { ...ticket, given: 'B' } }, 'command')).toContain(
      'a ticket like `A-123` (`B` is not in that form) with this change. Add it after the arguments: ticket A-123.',
    );
    expect(unjustifiedText({ reason: { rule: 'why' }, ticket: { ...ticket, rules: ['r', 's'] } }, 'command')).toBe(
      ':no_entry: The policy rules *why*, *r* and *s* ask for a reason and a ticket like `A-123` with this change. Add them after the arguments, the reason in quotes: because "why this change" ticket A-123. Nothing was requested.',
    );
    expect(unjustifiedFieldErrors({ reason: { rule: 'why' }, ticket: { ...ticket, given: 'B' } })).toStrictEqual({
      reason: 'The policy rule "why" asks for a reason with this change.',
      ticket: 'The policy rule "r" asks for a ticket like A-123; B is not in that form.',
    });
    // A pattern beyond the example builder (a lookahead no usual shape meets) is still not shown.
    expect(unjustifiedText({ ticket: { rules: ['r'], patterns: ['^(?=Q)Q$'] } }, 'form')).toContain(
      'a ticket in the form the rule sets (policy shows it)',
    );
  });

  it('policy lists what a rule requires', () => {
    const policy = mustParse(
      'rules:\n  - name: r\n    match: {}\n    approvals: 0\n    require: { reason: true, ticket: "^OPS-[0-9]+$" }\n',
    );
    const text = mrkdwnTexts(policyBlocks(policy, DEFAULTS)).join('\n');
    expect(text).toContain('needs no approval, and a reason and a ticket matching `^OPS-[0-9]+$`');
  });
});
