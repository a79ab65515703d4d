/**
 * What a policy demands of a request: a deny refuses it at once (the first in the file wins, with
 * its text); otherwise every matching rule is a requirement, and the request needs them all.
 * Only when every matching rule asks for 0 approvals is it applied without one; when no rule
 * matches, the default applies (one approval from APPROVERS).
 */
import { matchReasons } from './match.js';
import type { PolicyDecision, Policy, PolicyDefaults, RequestFacts, Requirement } from './types.js';

export const DEFAULT_RULE_NAME = 'default: one approval';

export function defaultRequirement(defaults: PolicyDefaults): Requirement {
  return {
    rule: DEFAULT_RULE_NAME,
    approvals: 1,
    approvers: [...defaults.approvers],
    reasons: ['no policy rule matches'],
    isDefault: true,
    ...(defaults.allowSelfApproval ? { selfApproval: true } : {}),
  };
}

export function evaluatePolicy(
  policy: Policy | undefined,
  facts: RequestFacts,
  defaults: PolicyDefaults,
): PolicyDecision {
  const requirements: Requirement[] = [];
  for (const rule of policy?.rules ?? []) {
    const reasons = matchReasons(rule.match, facts);
    if (reasons === undefined) continue;
    if (rule.effect === 'deny') return { kind: 'deny', rule: rule.name, text: rule.deny, reasons };
    requirements.push({
      rule: rule.name,
      approvals: rule.approvals,
      approvers: [...(rule.approvers ?? defaults.approvers)],
      reasons,
    });
  }
  if (requirements.length === 0) return { kind: 'approve', requirements: [defaultRequirement(defaults)] };
  if (requirements.every((r) => r.approvals === 0)) return { kind: 'auto', requirements };
  return { kind: 'approve', requirements };
}
