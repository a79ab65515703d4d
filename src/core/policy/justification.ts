/**
 * A request's justification: the reason and the ticket a person gives with it, the limits on
 * both, the safety check of a rule's ticket pattern, and which rule a request leaves unmet.
 * Problems are sentences for people (plain text; callers escape them when rendering).
 */
import type { Requirement, Requires } from './types.js';

/** A reason is a sentence or two: longer would push the change itself out of the request message. */
export const REASON_MAX_LENGTH = 500;
/** Ticket ids are short (ABC-123, INC0012345, a short URL); the bound also caps regex work per match. */
export const TICKET_MAX_LENGTH = 100;
/** A ticket pattern is a line of a policy file, not a program. */
export const TICKET_PATTERN_MAX_LENGTH = 200;

/** Letters, digits and the punctuation ticket ids and short links use; no spaces, no Slack markup. */
const TICKET_ID = /^[A-Za-z0-9][A-Za-z0-9._#/:=?&+-]*$/;

export interface Justification {
  reason?: string;
  ticket?: string;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

/** A reason as given: trimmed, not empty, not too long. */
export function checkReason(text: string): Checked<string> {
  const reason = text.trim().replace(/\s+/gu, ' ');
  if (reason === '')
    return { ok: false, message: 'The reason is empty. Write it in quotes, like because "INC-42 rollback".' };
  if ([...reason].length > REASON_MAX_LENGTH)
    return {
      ok: false,
      message: `The reason is ${[...reason].length} characters long; keep it to ${REASON_MAX_LENGTH}.`,
    };
  return { ok: true, value: reason };
}

/** A ticket id as given: one word of letters, digits and the usual punctuation. */
export function checkTicket(text: string): Checked<string> {
  const ticket = text.trim();
  if (ticket === '') return { ok: false, message: 'The ticket is empty. Give its id, like ticket OPS-123.' };
  if (ticket.length > TICKET_MAX_LENGTH)
    return {
      ok: false,
      message: `The ticket id is ${ticket.length} characters long; the limit is ${TICKET_MAX_LENGTH}.`,
    };
  if (!TICKET_ID.test(ticket))
    return {
      ok: false,
      message: 'A ticket id is one word of letters, digits and - _ . # / : (like OPS-123), without spaces.',
    };
  return { ok: true, value: ticket };
}

/**
 * Why a rule's ticket pattern is refused, or undefined when it is safe to run on every request.
 * Checked without running it: a pattern that compiles, is short, has no backreference and no
 * quantified group that itself repeats or branches (the shapes of catastrophic backtracking,
 * like (a+)+ or (a|ab)*). Tickets are also bounded (TICKET_MAX_LENGTH) before any match.
 */
export function ticketPatternProblem(pattern: string): string | undefined {
  if (pattern.trim() === '') return 'must not be empty (leave ticket out to ask for none)';
  if (pattern.length > TICKET_PATTERN_MAX_LENGTH)
    return `is ${pattern.length} characters long; a ticket pattern may have at most ${TICKET_PATTERN_MAX_LENGTH}`;
  try {
    new RegExp(pattern, 'u');
  } catch (error) {
    const detail = error instanceof Error ? error.message.replace(/^Invalid regular expression: /, '') : '';
    return `is not a regular expression (${detail}); write it like "^[A-Z]+-[0-9]+$"`;
  }
  if (/\\[1-9]|\\k</.test(pattern)) return 'must not use backreferences (\\1, \\k<name>): they can make matching slow';
  if (repeatsInsideRepeat(pattern))
    return 'must not repeat a group that itself repeats or has alternatives, like (a+)+ or (A|AB)*: such patterns can take forever to match; write it without the nesting';
  return undefined;
}

/** A quantifier (or `|`) inside a group that is itself followed by a quantifier. */
function repeatsInsideRepeat(pattern: string): boolean {
  // For each open group: whether it holds a quantifier or an alternative so far.
  const open: boolean[] = [];
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '\\') {
      i += 1;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      continue;
    }
    if (char === '[') inClass = true;
    else if (char === '(') open.push(false);
    else if (char === ')') {
      const risky = open.pop() ?? false;
      const next = pattern[i + 1];
      const quantified = next === '*' || next === '+' || next === '{' || next === '?';
      // `?` alone repeats nothing; * + {n,m} do.
      if (risky && quantified && next !== '?') return true;
      if (risky && open.length > 0) open[open.length - 1] = true;
    } else if (isRepeatOrBranch(pattern, i) && open.length > 0) {
      open[open.length - 1] = true;
    }
  }
  return false;
}

/** `*`, `+`, `{`, `|`, or a `?` that is a quantifier (not the `?` of a `(?:` group). */
function isRepeatOrBranch(pattern: string, at: number): boolean {
  const char = pattern[at];
  if (char === '?') return pattern[at - 1] !== '(';
  return char === '*' || char === '+' || char === '{' || char === '|';
}

/**
 * Everything a request lacks for its rules, said at once: the rule asking for a reason when none
 * was given, and the rules asking for a ticket when none was given or it matches not all of them.
 */
export interface Unjustified {
  reason?: { rule: string };
  /** `patterns`: every ticket pattern of the rules; `given`: the ticket the request has, which some do not accept. */
  ticket?: { rules: string[]; patterns: string[]; given?: string };
}

export function unjustified(requirements: readonly Requirement[], given: Justification): Unjustified | undefined {
  const lacking: Unjustified = {};
  const unmet: string[] = [];
  const patterns: string[] = [];
  for (const { require, rule } of requirements) {
    if (require?.reason && !given.reason) lacking.reason ??= { rule };
    const pattern = require?.ticket;
    if (pattern === undefined) continue;
    if (!patterns.includes(pattern)) patterns.push(pattern);
    if (!(given.ticket && ticketMatches(pattern, given.ticket)) && !unmet.includes(rule)) unmet.push(rule);
  }
  // Every pattern, not only the unmet ones: the ticket to give must satisfy them all.
  if (unmet.length > 0) lacking.ticket = { rules: unmet, patterns, ...(given.ticket ? { given: given.ticket } : {}) };
  return lacking.reason || lacking.ticket ? lacking : undefined;
}

/** A pattern that does not compile (a stored requirement from another version) matches nothing. */
export function ticketMatches(pattern: string, ticket: string): boolean {
  if (ticket.length > TICKET_MAX_LENGTH) return false;
  try {
    return new RegExp(pattern, 'u').test(ticket);
  } catch {
    return false;
  }
}

/** The rules that ask a reason or a ticket of a change, and what each asks. */
export function asksOf(requirements: readonly Requirement[]): Array<{ rule: string; require: Requires }> {
  return requirements.flatMap(({ rule, require }) => (require ? [{ rule, require }] : []));
}
