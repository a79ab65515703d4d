/**
 * What a policy demands of a request: a deny refuses it at once (the first in the file wins, with
 * its text); otherwise every matching rule is a requirement, and the request needs them all.
 * Only when every matching rule asks for 0 approvals is it applied without one; when no rule
 * matches, the default applies (one approval from APPROVERS).
 */
import { matchReasons } from './match.js';
import type { PolicyDecision, Policy, PolicyDefaults, RequestFacts, Requirement } from './types.js';

export const DEFAULT_RULE_NAME = 'default: one approval';

/** The default when no rule matches: one approval, or more for a kind that asks more by itself (a delete: two). */
export function defaultRequirement(defaults: PolicyDefaults, approvals = 1): Requirement {
  return {
    rule: approvals === 1 ? DEFAULT_RULE_NAME : `default: ${approvals === 2 ? 'two' : approvals} approvals`,
    approvals,
    approvers: [...defaults.approvers],
    reasons: ['no policy rule matches'],
    isDefault: true,
    ...(defaults.allowSelfApproval ? { selfApproval: true } : {}),
  };
}

/** A rule matched by the request's kind of change or its risk, not only by where it applies. */
const namesTheChange = (requirement: Requirement): boolean =>
  requirement.reasons.some((reason) => reason.startsWith('changes ') || reason.startsWith('risk '));

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
      ...(rule.require ? { require: rule.require } : {}),
      ...(rule.remindMs === undefined ? {} : { remindMs: rule.remindMs }),
      ...(rule.escalate ? { escalate: { afterMs: rule.escalate.afterMs, to: [...rule.escalate.to] } } : {}),
      ...(rule.channel === undefined ? {} : { channel: rule.channel }),
      ...(rule.notify === undefined ? {} : { notify: rule.notify }),
      ...(rule.window ? { window: rule.window } : {}),
      ...(rule.freezes ? { freezes: rule.freezes } : {}),
    });
  }
  if (requirements.length === 0)
    return { kind: 'approve', requirements: [defaultRequirement(defaults, facts.defaultApprovals ?? 1)] };
  // A kind that asks more by itself (a delete: two) keeps that default beside rules that match it
  // only by service or tag: "staging needs no approval" must not delete a service unasked.
  const floor = facts.defaultApprovals ?? 1;
  if (floor > 1 && !requirements.some(namesTheChange))
    requirements.push({ ...defaultRequirement(defaults, floor), reasons: ['no policy rule names this change'] });
  if (requirements.every((r) => r.approvals === 0)) return { kind: 'auto', requirements };
  return { kind: 'approve', requirements };
}

/**
 * What the rules in force ask of a request on the record it would apply to now, against what it
 * was made under: a deny rule now matching, or rules asking more approvals than it had (a tag
 * added since, a risk the record now makes). Undefined when nothing grew.
 */
export function rulesGrown(
  requirements: readonly Requirement[] | undefined,
  now: PolicyDecision,
): { kind: 'denied-now'; rule: string; text: string } | { kind: 'rules-grew'; rules: string[] } | undefined {
  if (now.kind === 'deny') return { kind: 'denied-now', rule: now.rule, text: now.text };
  // Requests from before policies existed keep the default they were made under.
  if (requirements === undefined) return undefined;
  const had = new Map(requirements.map((r) => [r.rule, r.approvals]));
  // The default stands in when no rule matches any more: fewer rules, not more (unless the
  // request itself was made under the default, which then compares like any rule).
  const madeUnderDefault = requirements.every((r) => r.isDefault);
  const grew = now.requirements
    .filter((r) => !r.isDefault || madeUnderDefault)
    .filter((r) => r.approvals > (had.get(r.rule) ?? 0))
    .map((r) => r.rule);
  return grew.length > 0 ? { kind: 'rules-grew', rules: grew } : undefined;
}
