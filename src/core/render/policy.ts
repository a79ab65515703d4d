/**
 * Policies for people: which rules a request must satisfy and how far it is, the answers to
 * clicks that cannot count, and `/clickhouse policy [SERVICE]`.
 */
import type { ServiceRecord } from '../service/schema.js';
import type { ChangeRequest } from '../change/types.js';
import { KIND_LIST } from '../change/kinds/index.js';
import { defaultRequirement, evaluatePolicy } from '../policy/evaluate.js';
import { serviceSide } from '../policy/facts.js';
import type { Unjustified } from '../policy/justification.js';
import { ticketExample } from '../policy/ticket-example.js';
import { ANY_VALUE } from '../policy/match.js';
import { ruleProgress, stillEligible, unmet, type RuleProgress } from '../policy/progress.js';
import {
  CHANGE_KINDS,
  type ChangeKind,
  type PolicyDecision,
  type Policy,
  type PolicyDefaults,
  type Requirement,
  type Requires,
  type Risk,
  type Rule,
  type ServiceSide,
  type ChangeWindow,
  type Freeze,
} from '../policy/types.js';
import { bold, code, context, esc, header, LIMITS, packLines, section, slackDate, type Block } from './mrkdwn.js';
import { formatDuration } from '../change/temporary.js';
import { people } from './people.js';
import { freezeText, windowText } from './breakglass.js';
import { breakGlassMaxMs } from '../policy/breakglass.js';
import { closingAfter, freezeInForce, freezeSpan, freezeZone, isOpen, nextOpening } from '../policy/window.js';

/** The request's requirements (the default one for requests made before policies). */
export function requirementsOf(
  request: Pick<ChangeRequest, 'requirements'>,
  defaults: PolicyDefaults,
): readonly Requirement[] {
  return request.requirements ?? [defaultRequirement(defaults)];
}

/** One line per rule the request must satisfy: why it applies, who approved, what is missing. */
export function progressLines(request: ChangeRequest, requirements: readonly Requirement[]): string[] {
  return ruleProgress(requirements, request.approvals ?? []).map((p) =>
    progressLine(p, request.requesterId, request.status === 'pending'),
  );
}

function progressLine(p: RuleProgress, requesterId: string, open: boolean): string {
  const { requirement } = p;
  const title = `${bold(requirement.rule)} (${esc(requirement.reasons.join(', '))})`;
  if (requirement.approvals === 0) return `:white_check_mark: ${title}: no approval needed`;
  const icon = p.missing === 0 ? ':white_check_mark:' : ':hourglass:';
  const parts = [
    `${Math.min(p.approvedBy.length, requirement.approvals)} of ${requirement.approvals} approval${requirement.approvals === 1 ? '' : 's'}`,
  ];
  if (p.approvedBy.length > 0) parts.push(`approved by ${people(p.approvedBy)}`);
  if (p.missing > 0 && open) parts.push(`${p.missing} more from ${whoMayApprove(p, requesterId)}`);
  const escalation = requirement.escalate;
  if (p.missing > 0 && open && escalation)
    parts.push(`escalates to ${people(escalation.to)} after ${formatDuration(escalation.afterMs)}`);
  return `${icon} ${title}: ${parts.join(' · ')}`;
}

/** Who may still give a rule its missing approvals, for people. */
export function whoMayApprove(p: RuleProgress, requesterId: string): string {
  const eligible = stillEligible(p, requesterId);
  if (eligible === undefined)
    return p.approvedBy.length > 0
      ? 'anyone else in the channel but the requester'
      : 'anyone in the channel but the requester';
  return eligible.length > 0
    ? people(eligible)
    : "nobody left on its list, so this request cannot be approved: cancel it and ask the rule's owners";
}

/** Short progress for `pending`: "1 of 2 approvals (production needs two DBAs: 1 more)". */
export function progressSummary(request: ChangeRequest, requirements: readonly Requirement[]): string {
  const progress = ruleProgress(requirements, request.approvals ?? []);
  const needed = progress.reduce((sum, p) => sum + p.requirement.approvals, 0);
  const open = progress.filter((p) => p.missing > 0);
  const given = (request.approvals ?? []).length;
  const detail = open.map((p) => `${esc(p.requirement.rule)}: ${p.missing} more`).join('; ');
  return `${given} approval${given === 1 ? '' : 's'} so far${needed > 0 && open.length > 0 ? ` (${detail})` : ''}`;
}

/** Told privately to someone whose approval would count for no rule still missing approvals. */
export function notEligibleText(
  request: ChangeRequest,
  requirements: readonly Requirement[],
  requester: boolean,
): string {
  const lead = requester
    ? 'You asked for this change, so someone else has to approve it.'
    : requirements.every((r) => r.isDefault)
      ? "You are not on this bot's list of approvers, so you cannot approve changes."
      : 'Your approval would not count for any rule this request still needs.';
  return `${lead} ${stillNeededText(request, requirements)}`;
}

/**
 * Told to someone who clicked a request's button outside its channel (the Home tab, a DM) but
 * could not see it there: nothing of the request nor of its channel (it may be private).
 */
export function outsiderText(slackCode?: string): string {
  if (slackCode === undefined)
    return ':no_entry: You cannot act on this request: it belongs to a channel you are not in, and no rule names you as one of its approvers. Ask someone in that channel, or ask to be added to it.';
  return `:no_entry: You cannot act on this request from here: no rule names you as one of its approvers, and the bot could not check whether you are in its channel. If you are, use the buttons in the channel itself. ${channelUnreadableText(slackCode)}`;
}

/** Slack would not list a channel's members: who runs the bot learns what to fix (the channel is not named). */
export function channelUnreadableText(slackCode: string): string {
  return `The bot could not check who is in the request's channel (Slack said: ${code(slackCode)}); whoever runs the bot should check its channels:read and groups:read scopes, and that the bot is in that channel.`;
}

/** "1 more for *prod two* from <!subteam^S1>": what a pending request still needs. */
export function stillNeededText(request: ChangeRequest, requirements: readonly Requirement[]): string {
  const missing = unmet(requirements, request.approvals ?? []).map(
    (p) => `${p.missing} more for ${bold(p.requirement.rule)} from ${whoMayApprove(p, request.requesterId)}`,
  );
  return missing.length > 0 ? `Still needed: ${missing.join('; ')}.` : 'Nothing more is needed.';
}

/** Told privately to whoever gave an approval that did not complete the request. */
export function approvalRecordedText(request: ChangeRequest): string {
  return `:thumbsup: Your approval of ${code(request.id)} is recorded. ${stillNeededText(request, request.requirements ?? [])}`;
}

/** The store refused to count an approval: given twice, or for rules met in the meantime. */
export function approvalNotCountedText(request: ChangeRequest, reason: 'already-approved' | 'not-needed'): string {
  const why =
    reason === 'already-approved'
      ? 'You already approved this request.'
      : 'The rules your approval counts for were met in the meantime.';
  return `${why} ${stillNeededText(request, request.requirements ?? [])} Nothing was changed.`;
}

/** For the audit entry of an approval: which rules it counted for (plain text). */
export function countsForText(requirements: readonly Requirement[], counts: readonly number[]): string {
  const rules = counts.map((index) => requirements[index]?.rule).filter((rule) => rule !== undefined);
  return rules.length > 0 ? `Counts for: ${rules.join('; ')}.` : '';
}

/** Told to the requester when a rule refuses the change. */
export function deniedText(decision: Extract<PolicyDecision, { kind: 'deny' }>): string {
  return `:no_entry: ${esc(decision.text)}\n_Refused by the policy rule ${bold(decision.rule)} (${esc(decision.reasons.join(', '))}). Nothing was requested._`;
}

function matchText(rule: Rule): string {
  const { tags, services, changes, risks } = rule.match;
  const parts = [
    ...Object.entries(tags ?? {}).map(([key, value]) =>
      value === ANY_VALUE ? `tag ${key} (any value)` : `${key}=${value}`,
    ),
    ...(services ? [`service ${services.join(' or ')}`] : []),
    ...(changes ? [`changes ${changes.join(' or ')}`] : []),
    ...(risks ? [`risk ${risks.join(' or ')}`] : []),
  ];
  return parts.length > 0 ? esc(parts.join(', ')) : 'every request';
}

function effectText(rule: Rule, defaults: PolicyDefaults): string {
  if (rule.effect === 'deny') return `refuses: _${esc(rule.deny)}_`;
  const asks = requiresText(rule.require);
  const when = whenText(rule);
  if (rule.approvals === 0) return `needs no approval${asks}${when}`;
  return `needs ${rule.approvals} approval${rule.approvals === 1 ? '' : 's'} from ${approversText(rule.approvers ?? defaults.approvers)}${asks}${when}`;
}

/** "; applied Mon–Thu 09:00–16:00 Berlin; frozen 2026-12-20 to 2027-01-04 (Year-end freeze)". */
function whenText(rule: { window?: ChangeWindow; freezes?: readonly Freeze[] }): string {
  return [
    ...(rule.window ? [`applied ${esc(windowText(rule.window))}`] : []),
    ...(rule.freezes ?? []).map((freeze) => `frozen ${esc(freezeText(freeze))}`),
  ]
    .map((part) => `; ${part}`)
    .join('');
}

/** Who may break glass, and for how long at most. */
function breakGlassLine(policy: Policy): string {
  const list = policy.breakglass ?? [];
  if (list.length === 0) return 'Break-glass: nobody is listed (`breakglass`), so every change goes through approval.';
  return `Break-glass: ${people(list)} may apply a temporary change at once (at most ${formatDuration(breakGlassMaxMs(policy))}), never past a deny rule; it is announced and reviewed afterwards.`;
}

/**
 * When changes to a service may be applied, as of `now`: each matching rule with a window (open
 * now until…, or its next opening) or a freeze (in force until…, or to come).
 */
function timingLines(requirements: readonly Requirement[], now: number): string[] {
  const seen = new Set<string>();
  return requirements.flatMap((requirement) => {
    if (seen.has(requirement.rule) || (!requirement.window && !requirement.freezes)) return [];
    seen.add(requirement.rule);
    const parts: string[] = [];
    const { window } = requirement;
    if (window) {
      const state = isOpen(window, now)
        ? `open now, until ${slackDate(closingAfter(window, now), '{time}')}`
        : `closed now; next opening ${slackDate(nextOpening(window, now), '{date_short_pretty} {time}')}`;
      parts.push(`applied ${esc(windowText(window))} (${state})`);
    }
    const frozen = freezeInForce(requirement.freezes, freezeZone(requirement), now);
    if (frozen)
      parts.push(
        `:snowflake: *frozen until ${slackDate(frozen.until, '{date_short_pretty} {time}')}*: “${esc(frozen.freeze.reason)}”`,
      );
    const coming = (requirement.freezes ?? []).filter((f) => freezeSpan(f, freezeZone(requirement)).from > now);
    if (coming.length > 0) parts.push(`freezes to come: ${coming.map((f) => esc(freezeText(f))).join('; ')}`);
    return [`• ${bold(requirement.rule)}: ${parts.join(' · ')}`];
  });
}

/** ", and a reason and a ticket matching `^[A-Z]+-[0-9]+$`": what a rule asks the requester to give. */
export function requiresText(require: Requires | undefined): string {
  if (!require) return '';
  const asks = [
    ...(require.reason ? ['a reason'] : []),
    ...(require.ticket !== undefined ? [`a ticket matching ${code(require.ticket)}`] : []),
  ];
  return asks.length > 0 ? `, and ${asks.join(' and ')}` : '';
}

/** What the rules ask for that the request lacks, and an example ticket id their patterns accept. */
function lackingParts(
  lacking: Unjustified,
  show: (text: string) => string,
): { rules: string[]; asks: string; example?: string } {
  const example = lacking.ticket && ticketExample(lacking.ticket.patterns);
  const ticket = example ? `a ticket like ${show(example)}` : 'a ticket in the form the rule sets (policy shows it)';
  const asks = [...(lacking.reason ? ['a reason'] : []), ...(lacking.ticket ? [ticket] : [])].join(' and ');
  const rules = [...new Set([...(lacking.reason ? [lacking.reason.rule] : []), ...(lacking.ticket?.rules ?? [])])];
  return { rules, asks, ...(example ? { example } : {}) };
}

/** `"a", "b"` or `*a* and *b*`: the rules asking, named as the message quotes them. */
function rulesAsking(rules: readonly string[], quote: (rule: string) => string): string {
  const named = rules.map(quote);
  const list = named.length > 1 ? `${named.slice(0, -1).join(', ')} and ${named.at(-1) ?? ''}` : (named[0] ?? '');
  return named.length > 1 ? `The policy rules ${list} ask` : `The policy rule ${list} asks`;
}

/** The same as inline errors of the edit form (plain text): every field lacking, each with why. */
export function unjustifiedFieldErrors(lacking: Unjustified): Partial<Record<'reason' | 'ticket', string>> {
  const errors: Partial<Record<'reason' | 'ticket', string>> = {};
  if (lacking.reason)
    errors.reason = `${rulesAsking([lacking.reason.rule], PLAIN.rule)} for a reason with this change.`;
  if (lacking.ticket) {
    const { asks } = lackingParts({ ticket: lacking.ticket }, PLAIN.code);
    const given = lacking.ticket.given === undefined ? '' : `; ${lacking.ticket.given} is not in that form`;
    errors.ticket = `${rulesAsking(lacking.ticket.rules, PLAIN.rule)} for ${asks}${given}.`;
  }
  return errors;
}

const PLAIN = { rule: (rule: string) => `"${rule}"`, data: (text: string) => text, code: (text: string) => text };
const MRKDWN = { rule: bold, data: esc, code };

/**
 * What the rules ask for that a request lacks, and how to add it (`because "…" ticket OPS-123`):
 * in mrkdwn, or in plain text (an outcome message, escaped where it is shown).
 */
export function lackingText(lacking: Unjustified, style: 'mrkdwn' | 'plain'): { what: string; add: string } {
  const show = style === 'plain' ? PLAIN : MRKDWN;
  const { rules, asks, example } = lackingParts(lacking, show.code);
  const given = lacking.ticket?.given === undefined ? '' : ` (${show.code(lacking.ticket.given)} is not in that form)`;
  const add = [
    ...(lacking.reason ? ['because "why this change"'] : []),
    ...(lacking.ticket ? [`ticket ${show.data(example ?? 'ID')}`] : []),
  ].join(' ');
  return { what: `${rulesAsking(rules, show.rule)} for ${asks}${given}`, add };
}

/** Told to the requester when rules ask for a reason or a ticket the request lacks; nothing was posted. */
export function unjustifiedText(lacking: Unjustified, asked: 'command' | 'form'): string {
  const { what, add } = lackingText(lacking, 'mrkdwn');
  const both = lacking.reason && lacking.ticket;
  const fields = [...(lacking.reason ? ['Reason'] : []), ...(lacking.ticket ? ['Ticket'] : [])].join(' and ');
  const how =
    asked === 'form'
      ? `Fill in the ${fields} field${both ? 's' : ''}.`
      : `Add ${both ? 'them' : 'it'} after the arguments${lacking.reason ? ', the reason in quotes' : ''}: ${add}.`;
  return `:no_entry: ${what} with this change. ${how} Nothing was requested.`;
}

function approversText(approvers: readonly string[]): string {
  return approvers.length > 0 ? people(approvers) : 'anyone in the channel but the requester';
}

function defaultText(defaults: PolicyDefaults): string {
  const more = KIND_LIST.filter((kind) => (kind.defaultApprovals ?? 1) > 1).map(
    (kind) => `${code(kind.policyName)}: ${kind.defaultApprovals}`,
  );
  return `When no rule matches: one approval from ${approversText(defaults.approvers)}${more.length > 0 ? ` (more for ${more.join(', ')})` : ''}${defaults.allowSelfApproval ? ' (the requester may approve their own request)' : ''}.`;
}

/** `/clickhouse policy`: the loaded rules in file order. */
export function policyBlocks(policy: Policy | undefined, defaults: PolicyDefaults): Block[] {
  if (!policy) {
    return [section(`No policy file is loaded (POLICY_FILE is unset). ${defaultText(defaults)}`)];
  }
  const lines = policy.rules.map(
    (rule, i) => `${i + 1}. ${bold(rule.name)}: when ${matchText(rule)}, ${effectText(rule, defaults)}`,
  );
  return [
    header(`Approval policy (${policy.rules.length} rule${policy.rules.length === 1 ? '' : 's'})`),
    ...packLines(lines, LIMITS.messageBlocks - 4, (n) => `_…and ${n} more rules_`),
    section(defaultText(defaults)),
    section(breakGlassLine(policy)),
    context(
      `A request needs every matching rule; a refusing rule wins. Rules match the service before or after the change. Policy file sha256 ${code(policy.digest.slice(0, 16))}.`,
    ),
  ];
}

/** The risks a kind of change can carry (the kinds table says), each possibly matched by its own rules. */
const risksOf = (kind: ChangeKind): readonly Risk[] =>
  KIND_LIST.find((module) => module.policyName === kind)?.possibleRisks ?? [];

/** A request of one kind on a service, as the rules see it: its approvals by default are the kind's own (a delete: two). */
const factsOfKind = (side: ServiceSide, kind: ChangeKind, risks: readonly Risk[]) => ({
  before: side,
  after: side,
  changes: [kind],
  risks,
  defaultApprovals: KIND_LIST.find((module) => module.policyName === kind)?.defaultApprovals ?? 1,
});

/** `/clickhouse policy SERVICE`: for each kind of change, what a request would need. */
export function servicePolicyBlocks(
  policy: Policy | undefined,
  service: ServiceRecord,
  defaults: PolicyDefaults,
  now?: number,
): Block[] {
  const side = serviceSide(service);
  const matching = CHANGE_KINDS.flatMap((kind) => {
    const decision = evaluatePolicy(policy, factsOfKind(side, kind, []), defaults);
    return decision.kind === 'deny' ? [] : decision.requirements;
  });
  const timing = now === undefined ? [] : timingLines(matching, now);
  const tags = [...side.tags].map(([k, v]) => `${k}=${v}`).join(', ');
  // Kinds that need the same (with the same exceptions for risks) share one line.
  const groups = new Map<string, { kinds: string[]; plain: string; risky: string[] }>();
  for (const kind of CHANGE_KINDS) {
    const outcome = (risks: Risk[]) => decisionText(evaluatePolicy(policy, factsOfKind(side, kind, risks), defaults));
    const plain = outcome([]);
    const risky = risksOf(kind)
      .map((risk) => ({ risk, text: outcome([risk]) }))
      .filter((r) => r.text !== plain)
      .map((r) => `      if it is ${code(r.risk)}: ${r.text}`);
    const key = [plain, ...risky].join('\n');
    const group = groups.get(key) ?? { kinds: [], plain, risky };
    group.kinds.push(kind);
    groups.set(key, group);
  }
  const lines = [...groups.values()].map(({ kinds, plain, risky }) =>
    [`• ${kinds.map((kind) => code(kind)).join(', ')}: ${plain}`, ...risky].join('\n'),
  );
  return [
    header(`Approval rules for ${service.name || service.id}`),
    section(`${bold(service.name)} ${code(service.id)}${tags ? ` · tags ${code(tags)}` : ' · no tags'}`),
    ...packLines(lines, LIMITS.messageBlocks - 4, (n) => `_…and ${n} more_`),
    ...(timing.length > 0 ? [section(`*When changes are applied*\n${timing.join('\n')}`)] : []),
    context(
      policy
        ? 'Rules also match the service as a change would leave it (a rename, a tag change).'
        : 'No policy file is loaded (POLICY_FILE is unset).',
    ),
  ];
}

function decisionText(decision: PolicyDecision): string {
  if (decision.kind === 'deny') return `refused by ${bold(decision.rule)}`;
  if (decision.kind === 'auto')
    return `no approval needed (${decision.requirements.map((r) => bold(r.rule)).join(', ')})${decision.requirements.map((r) => requiresText(r.require)).join('')}`;
  const approvals = decision.requirements
    .filter((r) => r.approvals > 0)
    .map((r) => `${r.approvals} from ${approversText(r.approvers)} (${bold(r.rule)})`)
    .join(' and ');
  const asks = decision.requirements.map((r) => requiresText(r.require)).filter(Boolean);
  return `${approvals}${asks.join('')}`;
}
