import { describe, expect, it } from 'vitest';
import {
  checkReason,
  checkTicket,
  REASON_MAX_LENGTH,
  ticketMatches,
  ticketPatternProblem,
  TICKET_PATTERN_MAX_LENGTH,
  unjustified,
} from '../../../src/core/policy/justification.js';
import type { Requirement } from '../../../src/core/policy/types.js';
import { parsePolicy } from '../../../src/core/policy/parse.js';
import { evaluatePolicy } from '../../../src/core/policy/evaluate.js';
import { DEFAULTS, facts, mustParse } from './examples.js';

const rule = (body: string) => `rules:\n  - name: r\n${body.replace(/^/gm, '    ')}\n`;

function problemsOf(text: string): string[] {
  const parsed = parsePolicy(text);
  if (parsed.ok) throw new Error('expected problems');
  return parsed.problems;
}

describe('policy require: { reason, ticket }', () => {
  it('reads both onto the rule, and evaluation carries them onto the requirement', () => {
    const policy = mustParse(rule('match: {}\napprovals: 1\nrequire: { reason: true, ticket: "^[A-Z]+-[0-9]+$" }'));
    expect(policy.rules[0]).toMatchObject({ require: { reason: true, ticket: '^[A-Z]+-[0-9]+$' } });
    const decision = evaluatePolicy(policy, facts(), DEFAULTS);
    expect(decision.kind !== 'deny' && decision.requirements[0]?.require).toEqual({
      reason: true,
      ticket: '^[A-Z]+-[0-9]+$',
    });
  });

  it('reason: false and an empty map ask for nothing', () => {
    expect(mustParse(rule('match: {}\napprovals: 0\nrequire: { reason: false }')).rules[0]).not.toHaveProperty(
      'require',
    );
    expect(mustParse(rule('match: {}\napprovals: 0\nrequire: {}')).rules[0]).not.toHaveProperty('require');
  });

  it('refuses wrong types, unknown keys, a bad regex and require in a deny rule, each with its line', () => {
    expect(problemsOf(rule('match: {}\napprovals: 1\nrequire: { reason: yes please }'))).toEqual([
      'line 5: rule 1 ("r"): require.reason must be true or false',
    ]);
    expect(problemsOf(rule('match: {}\napprovals: 1\nrequire: { ticket: 12 }'))).toEqual([
      'line 5: rule 1 ("r"): require.ticket must be a regular expression in quotes, like "^[A-Z]+-[0-9]+$"',
    ]);
    expect(problemsOf(rule('match: {}\napprovals: 1\nrequire: { reasons: true }'))).toEqual([
      'line 5: rule 1 ("r"): unknown key "reasons" (allowed here: reason, ticket)',
    ]);
    expect(problemsOf(rule('match: {}\napprovals: 1\nrequire: true'))[0]).toContain(
      'require must be a map with reason and/or ticket',
    );
    const [bad] = problemsOf(rule('match: {}\napprovals: 1\nrequire: { ticket: "^(OPS-[0-9]+$" }'));
    expect(bad).toMatch(/^line 5: rule 1 \("r"\): require.ticket is not a regular expression \(.+\); write it like/);
    expect(problemsOf(rule('match: {}\ndeny: no\nrequire: { reason: true }'))).toEqual([
      'line 5: rule 1 ("r"): require has no effect in a deny rule: it refuses anyway',
    ]);
  });
});

describe('ticketPatternProblem: patterns that could take forever are refused at load', () => {
  it.each(['^[A-Z]+-[0-9]+$', '^(OPS|INC)-\\d{1,6}$', '^(?:[A-Z]{2,5})-[0-9]+$', 'JIRA-[0-9]+', '^[a-z]+(-[a-z]+)?$'])(
    'accepts %s',
    (pattern) => expect(ticketPatternProblem(pattern)).toBeUndefined(),
  );

  it.each(['(a+)+$', '^(a*)*b', '^([A-Z]+-?)+$', '(a|ab)*c', '^(\\w+\\s?)*$', '(x+x+)+y', '((ab)*)+', '(a?){2,}'])(
    'refuses nested repetition %s',
    (pattern) => expect(ticketPatternProblem(pattern)).toContain('must not repeat a group'),
  );

  it('refuses backreferences, empty and overlong patterns', () => {
    expect(ticketPatternProblem('^(A)\\1$')).toContain('backreferences');
    expect(ticketPatternProblem(' ')).toContain('must not be empty');
    expect(ticketPatternProblem('A'.repeat(TICKET_PATTERN_MAX_LENGTH + 1))).toContain('at most');
  });

  it('brackets and escapes are not groups or quantifiers', () => {
    expect(ticketPatternProblem('^[(+)]+$')).toBeUndefined();
    expect(ticketPatternProblem('^\\(A\\+\\)+$')).toBeUndefined();
  });
});

describe('reasons, tickets and what a request lacks', () => {
  it('checks a reason and a ticket as given', () => {
    expect(checkReason('  roll  back\n now ')).toEqual({ ok: true, value: 'roll back now' });
    expect(checkReason(' ').ok).toBe(false);
    expect(checkReason('x'.repeat(REASON_MAX_LENGTH + 1))).toMatchObject({ ok: false });
    expect(checkTicket('OPS-123')).toEqual({ ok: true, value: 'OPS-123' });
    expect(checkTicket('https://jira.example/browse/OPS-1')).toMatchObject({ ok: true });
    expect(checkTicket('OPS 1')).toMatchObject({ ok: false });
    expect(checkTicket('<@U123>')).toMatchObject({ ok: false });
  });

  const requirement = (rule: string, require?: Requirement['require']): Requirement => ({
    rule,
    approvals: 1,
    approvers: [],
    reasons: [],
    ...(require ? { require } : {}),
  });

  it('names everything left unmet at once: the reason, the ticket missing or not matching', () => {
    const rules = [
      requirement('free'),
      requirement('why', { reason: true }),
      requirement('jira', { ticket: '^OPS-[0-9]+$' }),
      requirement('short', { ticket: '^.{1,8}$' }),
    ];
    const patterns = ['^OPS-[0-9]+$', '^.{1,8}$'];
    expect(unjustified(rules, {})).toEqual({
      reason: { rule: 'why' },
      ticket: { rules: ['jira', 'short'], patterns },
    });
    expect(unjustified(rules, { reason: 'x' })).toEqual({ ticket: { rules: ['jira', 'short'], patterns } });
    expect(unjustified(rules, { ticket: 'INC-1' })).toEqual({
      reason: { rule: 'why' },
      ticket: { rules: ['jira'], patterns, given: 'INC-1' },
    });
    expect(unjustified(rules, { reason: 'x', ticket: 'OPS-1' })).toBeUndefined();
    expect(unjustified([requirement('free')], {})).toBeUndefined();
  });

  it('a pattern that does not compile matches nothing', () => {
    expect(ticketMatches('(', 'OPS-1')).toBe(false);
  });
});
