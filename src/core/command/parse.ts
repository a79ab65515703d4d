/**
 * Reads the text of a `/clickhouse ...` slash command into a Command. Pure and total: whatever
 * arrives, the answer is a Command, and every mistake becomes an "invalid" answer that tells the
 * person what is wrong, in their words, with the command's usage line. Services are not resolved
 * here (that needs the API); everything that can be checked without one is.
 */
import type { OrganizationTargetType } from '../access/target.js';
import type { ChangeIntent } from '../change/types.js';
import { checkFilterWords, echo, type Checked } from './arguments.js';
import {
  exampleOf,
  specOfName,
  suggestionsFor,
  usageForWords,
  usageOf,
  usagesOfGroup,
  type BaseCommandName,
  type CommandName,
} from './catalogue.js';
import { KIND_COMMANDS, TEMPORARY_FORMS, type KindCommand } from '../change/kinds/index.js';
import { listed } from '../change/listed.js';
import { normalizeSlackText, tokenize, type Token } from './tokenize.js';
import { ArgumentReader, QUOTE_HINT, QUOTED_DESCRIPTION, textOf, UsageProblem, type ParsedChange } from './reader.js';
import { checkReason, checkTicket, type Justification } from '../policy/justification.js';
import { readWhen, type WhenSpec } from './when.js';
import { DEFAULT_PERIOD, PERIODS, type PeriodName } from '../cost/period.js';

export type Command =
  /**
   * `topic`: the words after `help` (`help scale`, `help ip`), lower case; absent: every command.
   * `overview`: nothing was typed after the slash command, which gets the few commands used first.
   */
  | { kind: 'help'; topic?: string; overview?: true }
  /** suggestions: the commands probably meant ("lst" → list), absent when none is close. */
  | { kind: 'unknown'; word: string; suggestions?: CommandName[] }
  | { kind: 'list'; filters: string[] }
  | { kind: 'show'; service: string }
  | { kind: 'backups'; service: string }
  | { kind: 'keys' }
  /** role: the words after `members`, as typed (a role name may have spaces); absent: everyone. */
  | { kind: 'members'; role?: string }
  | { kind: 'roles' }
  | { kind: 'health'; service: string }
  | { kind: 'query-endpoint'; service: string }
  | { kind: 'upgrade-window'; service: string }
  | { kind: 'scaling-schedule'; service: string }
  | { kind: 'edit'; service: string }
  /** verb is the command that asked for the change, as the catalogue names it: "ip add", "rename"... */
  /** when: `at TIME`, read but not yet resolved to an instant (that needs the clock and a time zone). */
  | ({
      kind: 'change';
      service: string;
      intent: ChangeIntent;
      verb: string;
      durationMs?: number;
      when?: WhenSpec;
      /** `service` names a member (email, @user) or an API key, not a service. */
      target?: OrganizationTargetType;
    } & Justification)
  | { kind: 'pending' }
  | { kind: 'temporary' }
  | { kind: 'history'; service?: string }
  | { kind: 'policy'; service?: string }
  /** `breakglass` followed by a change command: applied at once by someone on the break-glass list. */
  | { kind: 'breakglass'; change: Extract<Command, { kind: 'change' }> }
  | { kind: 'summary'; filters: string[] }
  /** service and filters never both; period defaults to 7d. */
  | { kind: 'cost'; service?: string; filters: string[]; period: PeriodName }
  /** chart: the summary shares the daily spend chart too (`chart:on`). */
  | { kind: 'schedule add'; cron: string; filters: string[]; timeZone?: string; chart?: boolean }
  | { kind: 'schedule list' }
  | { kind: 'schedule remove'; id: string }
  | { kind: 'invalid'; message: string; usage: string };

export type CommandKind = Command['kind'];

/**
 * A command has one spelling: every kind but the three that stand for many commands or none
 * (change, unknown, invalid) is the catalogue's name, and the compiler holds them together.
 */
type NamedKind = Exclude<CommandKind, 'change' | 'unknown' | 'invalid'>;
const KINDS_ARE_CATALOGUE_NAMES: NamedKind extends BaseCommandName ? true : never = true;
void KINDS_ARE_CATALOGUE_NAMES;

// A record rather than an array so that adding a kind to Command without listing it fails to compile.
const KINDS: Record<CommandKind, true> = {
  help: true,
  unknown: true,
  list: true,
  show: true,
  backups: true,
  keys: true,
  members: true,
  roles: true,
  health: true,
  'query-endpoint': true,
  'upgrade-window': true,
  'scaling-schedule': true,
  edit: true,
  change: true,
  pending: true,
  temporary: true,
  history: true,
  policy: true,
  breakglass: true,
  summary: true,
  cost: true,
  'schedule add': true,
  'schedule list': true,
  'schedule remove': true,
  invalid: true,
};
export const COMMAND_KINDS = Object.keys(KINDS) as readonly CommandKind[];

/** Slack's own limit on a message; anything longer did not come from a person typing. */
export const MAX_COMMAND_LENGTH = 4000;
/**
 * Unescaping only shrinks text, and a link only grows it by its URL, so raw text this long cannot
 * be a command of acceptable length: refuse it before spending time on it.
 */
const MAX_RAW_LENGTH = 4 * MAX_COMMAND_LENGTH;

export function parseCommand(text: string): Command {
  try {
    return parseText(text);
  } catch (error) {
    if (error instanceof UsageProblem) return { kind: 'invalid', message: error.message, usage: error.usage };
    // Not reachable by design (see the property test), but a bug must still get the person an
    // answer rather than an unhandled rejection in the Slack handler.
    const message = 'I could not read that command. Check it against help.';
    return { kind: 'invalid', message, usage: usageOf('help') };
  }
}

/** The argument reader of a command: its sentences quote that command's usage and example. */
const reader = (name: CommandName) => new ArgumentReader(specOfName(name));

function fail(name: CommandName, message: string): never {
  return reader(name).fail(message);
}

function must<T>(name: CommandName, checked: Checked<T>): T {
  return reader(name).must(checked);
}

function parseText(text: string): Command {
  // Typed as a string, but Slack payloads are JSON: never trust that at run time.
  const raw = typeof text === 'string' ? text : '';
  if (raw.length > MAX_RAW_LENGTH) throw tooLong(raw);
  const normalized = normalizeSlackText(raw);
  if (normalized.length > MAX_COMMAND_LENGTH) throw tooLong(normalized);
  const { tokens, unterminated } = tokenize(normalized);
  const [first, ...args] = tokens;
  const handler = first === undefined ? undefined : HANDLERS.get(first.text.toLowerCase());
  // An unknown word is the bigger problem: help answers it better than a remark about quotes.
  if (first !== undefined && handler === undefined) {
    const suggestions = suggestionsFor(first.text, args[0]?.text);
    return suggestions.length > 0
      ? { kind: 'unknown', word: first.text, suggestions }
      : { kind: 'unknown', word: first.text };
  }
  if (unterminated !== undefined) throw unclosedQuote(unterminated, tokens);
  if (first === undefined) return { kind: 'help', overview: true };
  if (handler === undefined) return { kind: 'help' };
  return parseWords(first, args);
}

/** A command from its first word on (also the change after `breakglass`). */
function parseWords(first: Token, args: Token[]): Command {
  const firstWord = first.text.toLowerCase();
  if (firstWord === 'breakglass') return parseBreakglass(args);
  const handler = HANDLERS.get(firstWord) ?? (() => ({ kind: 'help' }) as const);
  // A command whose own arguments hold `at` (backup-config's start time) is never scheduled.
  const timed = OWNS_AT.has(firstWord) ? { args } : splitWhen(firstWord, args);
  const justified = splitJustification(firstWord, timed.args);
  return withWhen(withJustification(handler(justified.args), justified, first.text), timed.when, first.text);
}

function tooLong(text: string): UsageProblem {
  return new UsageProblem(
    `That command is ${text.length} characters long; I read at most ${MAX_COMMAND_LENGTH}. Shorten it.`,
    usageForWords(text.slice(0, 200).trim().split(/\s+/u)),
  );
}

/** `rest` starts with the quote that was never closed (every quote character is one code unit). */
function unclosedQuote(rest: string, before: Token[]): UsageProblem {
  const after = rest.slice(1);
  const where = after.trim() === '' ? 'at the end' : `before ${echo(after)}`;
  return new UsageProblem(
    `The quote ${rest.charAt(0)} ${where} is never closed. ` +
      'Close it with a matching quote followed by a space (or at the very end), or remove it.',
    usageForWords(before.map((token) => token.text)),
  );
}

type Handler = (args: Token[]) => Command;

/** The word a command starts with: "ip" for "ip add". */
type FirstWord<Name extends string> = Name extends `${infer Word} ${string}` ? Word : Name;

/** One parser per first word of a base command: an entry without one does not compile. */
const PARSERS: Record<FirstWord<BaseCommandName>, Handler> = {
  help: (args) =>
    args.length > 0 ? { kind: 'help', topic: args.map((arg) => arg.text.toLowerCase()).join(' ') } : { kind: 'help' },
  list: (args) => ({ kind: 'list', filters: filtersOf('list', args) }),
  summary: (args) => ({ kind: 'summary', filters: filtersOf('summary', args) }),
  cost: parseCost,
  show: (args) => ({ kind: 'show', service: onlyService('show', args) }),
  backups: (args) => ({ kind: 'backups', service: onlyService('backups', args) }),
  health: (args) => ({ kind: 'health', service: onlyService('health', args) }),
  'query-endpoint': (args) => ({ kind: 'query-endpoint', service: onlyService('query-endpoint', args) }),
  'upgrade-window': (args) => ({ kind: 'upgrade-window', service: onlyService('upgrade-window', args) }),
  'scaling-schedule': (args) => ({ kind: 'scaling-schedule', service: onlyService('scaling-schedule', args) }),
  members: (args) =>
    args.length === 0 ? { kind: 'members' } : { kind: 'members', role: args.map((arg) => arg.text).join(' ') },
  roles: (args) => {
    rejectExtra('roles', args, 'nothing', '');
    return { kind: 'roles' };
  },
  keys: (args) => {
    rejectExtra('keys', args, 'nothing', '');
    return { kind: 'keys' };
  },
  edit: (args) => ({ kind: 'edit', service: onlyService('edit', args) }),
  pending: parsePending,
  temporary: parseTemporary,
  history: (args) => ({ kind: 'history', ...optionalService('history', args) }),
  policy: (args) => ({ kind: 'policy', ...optionalService('policy', args) }),
  breakglass: (args) => parseBreakglass(args),
  schedule: parseSchedule,
};

// ---------------------------------------------------------------------------------------------
// Commands that request a change: each is declared, with its parser, by its kind module

/** The change commands by first word: one command ("scale"), or a group chosen by the second word ("ip add"). */
function changeCommandsByWord(): Map<string, KindCommand[]> {
  const byWord = new Map<string, KindCommand[]>();
  for (const command of KIND_COMMANDS) {
    const word = command.name.split(' ')[0] ?? command.name;
    byWord.set(word, [...(byWord.get(word) ?? []), command]);
  }
  return byWord;
}

function changeHandler(word: string, commands: readonly KindCommand[]): Handler {
  const [only] = commands;
  return commands.length === 1 && only !== undefined && only.name === word
    ? (args: Token[]) => changeCommand(only, only.parse(args, new ArgumentReader(only)))
    : groupHandler(word, commands);
}

/** A group (ip add, ip remove): the command chosen by its second word, or by the word after the service. */
function groupHandler(word: string, commands: readonly KindCommand[]): Handler {
  const afterService = commands.some((command) => command.verbAfterService);
  return (args) => {
    const at = afterService ? 1 : 0;
    const action = args[at];
    const rest = [...args.slice(0, at), ...args.slice(at + 1)];
    const sub = action?.text.toLowerCase();
    const chosen = commands.find((command) => command.name === `${word} ${sub}`);
    if (chosen !== undefined) return changeCommand(chosen, chosen.parse(rest, new ArgumentReader(chosen)));
    const names = commands.map((command) => command.name);
    const subs = names.map((name) => name.split(' ')[1] ?? name);
    const ask = commands.find((command) => command.groupAsk !== undefined)?.groupAsk ?? `Say which ${word} command`;
    const written = afterService ? `${word} SERVICE ${subs.join('|')}` : names.join(' or ');
    const message =
      action === undefined
        ? `${ask}: ${written}.`
        : `${word} can ${subs.join(' or ')}, not ${echo(action.text)}. Write ${written}.`;
    throw new UsageProblem(message, usagesOfGroup(word));
  };
}

/** The change a command asks for; `target` when its SERVICE argument names a member or a key. */
function changeCommand(command: KindCommand, parsed: ParsedChange): Command {
  return { kind: 'change', ...parsed, ...(command.target ? { target: command.target } : {}) };
}

const CHANGE_COMMANDS = changeCommandsByWord();

/**
 * A word that is both a command that reads and a change (the read shows a service's setting, the
 * change asks for one): the service alone is the read, more words ask for the change.
 */
function withReadForm(word: string, change: Handler): Handler {
  const read = Object.hasOwn(PARSERS, word) ? PARSERS[word as keyof typeof PARSERS] : undefined;
  return read === undefined ? change : (args) => (args.length <= 1 ? read(args) : change(args));
}

// A Map, not the object itself, so that words like "constructor" or "__proto__" are just unknown.
const HANDLERS: ReadonlyMap<string, Handler> = new Map<string, Handler>([
  ...Object.entries(PARSERS),
  ...[...CHANGE_COMMANDS].map(([word, commands]) => [word, withReadForm(word, changeHandler(word, commands))] as const),
]);

/** The commands that may break glass for good: containment of a leak (a key disabled). */
const CONTAINMENTS: readonly string[] = KIND_COMMANDS.flatMap((command) =>
  command.breaksGlassForGood ? [command.name] : [],
);

/** First words of the commands whose own arguments include `at`. */
const OWNS_AT: ReadonlySet<string> = new Set(
  [...CHANGE_COMMANDS].flatMap(([word, commands]) => (commands.some((c) => c.ownsAt) ? [word] : [])),
);

/** Words before which `because`, `ticket` and `at` are never read as such: the service (after a sub-verb). */
const FIXED_WORDS: ReadonlyMap<string, number> = new Map(
  [...CHANGE_COMMANDS].map(([word, commands]) => [word, Math.max(...commands.map((c) => c.fixedWords ?? 1))]),
);

// ---------------------------------------------------------------------------------------------
// Shared argument handling

function missing(name: CommandName, what: string): never {
  return reader(name).missing(what);
}

function rejectExtra(name: CommandName, extra: Token[], takes: string, hint = QUOTE_HINT): void {
  reader(name).rejectExtra(extra, takes, hint);
}

function serviceOf(name: CommandName, token: Token | undefined, what: string): string {
  return reader(name).service(token, what);
}

function onlyService(
  name: 'show' | 'edit' | 'backups' | 'health' | 'query-endpoint' | 'upgrade-window' | 'scaling-schedule',
  args: Token[],
): string {
  const [service, ...extra] = args;
  const value = serviceOf(name, service, 'which service');
  rejectExtra(name, extra, 'one service');
  return value;
}

function filtersOf(name: 'list' | 'summary', args: Token[]): string[] {
  return must(name, checkFilterWords(textOf(args), { timeZoneAllowed: false })).filters;
}

// ---------------------------------------------------------------------------------------------
// because "REASON" and ticket ID, anywhere after the arguments of any command that asks a change

type Justified = { args: Token[] } & Justification;

/**
 * Takes every unquoted `because "TEXT"` and `ticket ID` out of the arguments, before the
 * command's own parser sees them (as splitDuration does for `for DURATION`). `because` takes
 * exactly one quoted word, so it can never swallow a service, a description or a `for DURATION`;
 * the first words (the service) are never read as either, so a service named "ticket" still works.
 */
function splitJustification(firstWord: string, args: Token[]): Justified {
  const from = FIXED_WORDS.get(firstWord) ?? 1;
  const problem: (message: string) => never = (message) => {
    throw new UsageProblem(message, usageForWords([firstWord, ...textOf(args)]));
  };
  const kept: Token[] = [];
  const given: Justification = {};
  for (let at = 0; at < args.length; at++) {
    const token = args[at] as Token;
    const word = token.quoted ? undefined : token.text.toLowerCase();
    if (at < from || (word !== 'because' && word !== 'ticket')) {
      kept.push(token);
      continue;
    }
    const value = args[at + 1];
    if (given[word === 'because' ? 'reason' : 'ticket'] !== undefined)
      problem(`Give one ${word === 'because' ? 'reason' : 'ticket'}: ${word} appears twice.`);
    if (word === 'because') {
      if (value === undefined)
        problem('The because at the end is not followed by a reason. Write it in quotes: because "why this change".');
      if (!value.quoted) problem(unquotedReason(args.slice(at + 1)));
      given.reason = checked(checkReason(value.text), problem);
    } else {
      if (value === undefined)
        problem('The ticket at the end is not followed by its id. Write it like this: ticket OPS-123.');
      given.ticket = checked(checkTicket(value.text), problem);
    }
    at += 1;
  }
  return { args: kept, ...given };
}

function checked<T>(value: { ok: true; value: T } | { ok: false; message: string }, problem: (m: string) => never): T {
  return value.ok ? value.value : problem(value.message);
}

/** Unquoted words after because: where the reason ends cannot be told, so show it quoted. */
function unquotedReason(after: Token[]): string {
  const end = after.findIndex((t) => !t.quoted && ['for', 'ticket', 'because'].includes(t.text.toLowerCase()));
  const words = textOf(end === -1 ? after : after.slice(0, end));
  const example = `because ${echo(words.join(' '))}`;
  return `Put the reason after because in quotes, like ${example}: without quotes I cannot tell where it ends (a for DURATION or a description may follow).`;
}

/** Only a change request carries a reason and a ticket; any other command given one is refused. */
function withJustification(command: Command, given: Justified, firstWord: string): Command {
  if (given.reason === undefined && given.ticket === undefined) return command;
  if (command.kind === 'change')
    return {
      ...command,
      ...(given.reason !== undefined ? { reason: given.reason } : {}),
      ...(given.ticket !== undefined ? { ticket: given.ticket } : {}),
    };
  if (command.kind === 'invalid') return command;
  const words = [given.reason !== undefined ? 'because' : '', given.ticket !== undefined ? 'ticket' : ''].filter(
    Boolean,
  );
  const hint = command.kind === 'edit' ? ' The edit form has Reason and Ticket fields.' : '';
  throw new UsageProblem(
    `${words.join(' and ')} go${words.length === 1 ? 'es' : ''} with commands that request a change, not with ${firstWord.toLowerCase()}.${hint}`,
    usageForWords([firstWord]),
  );
}

// ---------------------------------------------------------------------------------------------
// at TIME: when an approved change is applied (core/command/when.ts)

/** Commands whose own words may hold an `at` of another meaning (a cron expression is quoted, but its filters are not). */
const UNTIMED_FIRST_WORDS: ReadonlySet<string> = new Set(['schedule', 'help']);

/**
 * Takes an unquoted `at TIME [tz:ZONE]` out of the arguments, before `because`, `for` and the
 * command's own parser see them. Words after an `at` that look like a time but cannot be read are
 * refused with the accepted forms, never taken as a description (as `for` does); an `at` followed
 * by other words ("vendor at office") stays a word of the description.
 */
function splitWhen(firstWord: string, args: Token[]): { args: Token[]; when?: WhenSpec } {
  if (UNTIMED_FIRST_WORDS.has(firstWord)) return { args };
  const from = FIXED_WORDS.get(firstWord) ?? 1;
  const problem = (message: string): never => {
    throw new UsageProblem(message, usageForWords([firstWord, ...textOf(args)]));
  };
  let when: WhenSpec | undefined;
  const kept: Token[] = [];
  for (let at = 0; at < args.length; at++) {
    const token = args[at] as Token;
    if (at < from || token.quoted || token.text.toLowerCase() !== 'at') {
      kept.push(token);
      continue;
    }
    // The words of the time and the one after it (refused when it would change the time).
    const after = args.slice(at + 1, at + 5);
    const reading = readWhen(textOf(after.slice(0, firstQuoted(after))));
    if (reading.kind === 'other') {
      kept.push(token);
      continue;
    }
    if (reading.kind === 'unreadable') return problem(`${reading.message} ${QUOTED_DESCRIPTION}`);
    if (when) problem(`Give one time: at appears twice (${echo(when.text)} and ${echo(reading.spec.text)}).`);
    when = reading.spec;
    at += reading.words;
  }
  // A zone elsewhere would be a description while the time is read in another zone.
  const stray = kept.find((token, index) => index >= from && !token.quoted && /^tz:/iu.test(token.text));
  if (when && stray)
    problem(
      `${echo(stray.text)} stands apart from the time: write it right after the time, like ${echo(`at ${when.text} ${stray.text}`)}.`,
    );
  return when ? { args: kept, when } : { args: kept };
}

function firstQuoted(tokens: Token[]): number {
  const index = tokens.findIndex((token) => token.quoted);
  return index === -1 ? tokens.length : index;
}

/** Only a change request can be scheduled; any other command given a time is refused. */
function withWhen(command: Command, when: WhenSpec | undefined, firstWord: string): Command {
  if (when === undefined || command.kind === 'invalid') return command;
  if (command.kind === 'change') return { ...command, when };
  throw new UsageProblem(
    `at ${echo(when.text)} schedules a change; ${firstWord.toLowerCase()} does not change anything, so it takes no time.`,
    usageForWords([firstWord]),
  );
}

// ---------------------------------------------------------------------------------------------
// breakglass CHANGE COMMAND: a change applied at once, which must say why and for how long

function parseBreakglass(args: Token[]): Command {
  const [inner, ...rest] = args;
  if (inner === undefined) return missing('breakglass', 'the change to make');
  const word = inner.text.toLowerCase();
  if (!HANDLERS.has(word) || word === 'breakglass')
    fail(
      'breakglass',
      `${echo(inner.text)} is not a command I know. Write the change after breakglass, like this: ${exampleOf('breakglass')}`,
    );
  const command = parseWords(inner, rest);
  if (command.kind === 'invalid') return command;
  if (command.kind !== 'change')
    fail(
      'breakglass',
      `breakglass goes before a command that changes a service, not ${echo(inner.text)}, like this: ${exampleOf('breakglass')}`,
    );
  if (command.when !== undefined)
    fail(
      'breakglass',
      'Break-glass applies at once, so it takes no at TIME. Leave the at out, or ask for a scheduled change the usual way.',
    );
  if (command.reason === undefined)
    fail(
      'breakglass',
      `Break-glass needs a reason that reviewers will read: add because "INC-7 dashboards down", like this: ${exampleOf('breakglass')}`,
    );
  const containment = KIND_COMMANDS.some((kind) => kind.name === command.verb && kind.breaksGlassForGood);
  if (command.durationMs === undefined && !containment)
    fail(
      'breakglass',
      `Break-glass changes are temporary: end the change with for DURATION (like for 1h), like this: ${exampleOf('breakglass')}. Only changes the bot can take back exactly can break glass: ${listed(TEMPORARY_FORMS)}${CONTAINMENTS.length > 0 ? `; and, for good, ${listed(CONTAINMENTS)}` : ''}.`,
    );
  return { kind: 'breakglass', change: command };
}

// ---------------------------------------------------------------------------------------------
// Commands that read

function parseTemporary(args: Token[]): Command {
  rejectExtra('temporary', args, 'nothing', '');
  return { kind: 'temporary' };
}

function parsePending(args: Token[]): Command {
  rejectExtra('pending', args, 'nothing', '');
  return { kind: 'pending' };
}

function optionalService(name: 'history' | 'policy', args: Token[]): { service?: string } {
  const [service, ...extra] = args;
  if (service === undefined) return {};
  const value = serviceOf(name, service, 'which service');
  rejectExtra(name, extra, 'at most one service');
  return { service: value };
}

// ---------------------------------------------------------------------------------------------
// Spend

const PERIOD_WORDS = Object.keys(PERIODS).join(', ');
const LONGEST_PERIOD = Math.max(...Object.values(PERIODS));

function isPeriodName(word: string): word is PeriodName {
  return Object.hasOwn(PERIODS, word);
}

/** A word that looks like a period ("14d", "2w", "3 months" as 3m) but is not one of ours, or undefined. */
function periodProblem(word: string): string | undefined {
  const match = /^(\d+)\s*([a-z]+)$/i.exec(word);
  if (!match) return undefined;
  const [, count = '', unit = ''] = match;
  const days = /^d(ays?)?$/i.test(unit) ? Number(count) : undefined;
  if (days !== undefined && days > LONGEST_PERIOD) {
    return `${echo(word)} is longer than I look back: at most ${LONGEST_PERIOD} days. Choose ${PERIOD_WORDS}.`;
  }
  if (!/^(d|days?|w|weeks?|m|months?|y|years?)$/i.test(unit)) return undefined;
  return `I can show spend for ${PERIOD_WORDS}, not ${echo(word)}.`;
}

function parseCost(args: Token[]): Command {
  let period: PeriodName | undefined;
  const filters: string[] = [];
  let service: string | undefined;
  for (const token of args) {
    const word = token.text.trim();
    const lower = word.toLowerCase();
    if (!token.quoted && isPeriodName(lower)) {
      if (period !== undefined && period !== lower) fail('cost', `Give one period, not two (${period} and ${lower}).`);
      period = lower;
      continue;
    }
    const notPeriod = token.quoted ? undefined : periodProblem(word);
    if (notPeriod !== undefined) fail('cost', notPeriod);
    if (!token.quoted && lower.startsWith('tag:')) {
      filters.push(...must('cost', checkFilterWords([word], { timeZoneAllowed: false })).filters);
      continue;
    }
    if (service !== undefined) {
      fail('cost', `cost takes one service, so I don't know what to do with ${echo(word)}. ${QUOTE_HINT}`);
    }
    service = serviceOf('cost', token, 'which service');
  }
  if (service !== undefined && filters.length > 0) {
    fail('cost', 'Give either one service or tag filters, not both: the filters choose services themselves.');
  }
  const chosen = period ?? DEFAULT_PERIOD;
  return service === undefined
    ? { kind: 'cost', filters, period: chosen }
    : { kind: 'cost', service, filters, period: chosen };
}

// ---------------------------------------------------------------------------------------------
// Scheduled summaries

function parseSchedule(args: Token[]): Command {
  const [action, ...rest] = args;
  const word = action?.text.toLowerCase();
  if (word === 'add') return parseScheduleAdd(rest);
  if (word === 'list') {
    rejectExtra('schedule list', rest, 'nothing', '');
    return { kind: 'schedule list' };
  }
  if (word === 'remove') return parseScheduleRemove(rest);
  const message =
    action === undefined
      ? 'Say what to do with schedules: schedule add, schedule list or schedule remove.'
      : `schedule can add, list or remove, not ${echo(action.text)}.`;
  throw new UsageProblem(message, usagesOfGroup('schedule'));
}

function parseScheduleAdd(args: Token[]): Command {
  const [cronToken, ...filterTokens] = args;
  if (cronToken === undefined) missing('schedule add', 'when to post, as a cron expression in quotes');
  const cron = cronOf(cronToken);
  const isChartWord = (token: Token) => !token.quoted && token.text.toLowerCase().startsWith('chart:');
  const chartWords = filterTokens.filter(isChartWord).map((token) => token.text.toLowerCase());
  const chart = chartWords.at(-1);
  if (chart !== undefined && chart !== 'chart:on' && chart !== 'chart:off') {
    fail('schedule add', `${echo(chart)} is not something I know: write chart:on to add the daily spend chart.`);
  }
  const words = checkFilterWords(textOf(filterTokens.filter((token) => !isChartWord(token))), {
    timeZoneAllowed: true,
  });
  const { filters, timeZone } = must('schedule add', words);
  // Left out rather than undefined when absent, so stored schedules carry no empty field.
  return {
    kind: 'schedule add',
    cron,
    filters,
    ...(timeZone === undefined ? {} : { timeZone }),
    ...(chart === 'chart:on' ? { chart: true } : {}),
  };
}

/**
 * A cron expression has spaces, so unquoted it would be split into words we would misread as
 * filters. Nicknames such as @daily have none and may go unquoted. Validity is checked elsewhere.
 */
function cronOf(token: Token): string {
  const cron = token.text.trim();
  const example = exampleOf('schedule add');
  if (!token.quoted && !cron.startsWith('@')) {
    fail('schedule add', `Put the cron expression in quotes, because it contains spaces: ${example}`);
  }
  if (cron === '') fail('schedule add', `The cron expression is empty. Write it like this: ${example}`);
  return cron;
}

function parseScheduleRemove(args: Token[]): Command {
  const [id, ...extra] = args;
  const value = reader('schedule remove').id(id, 'which schedule to remove (its id is in schedule list)');
  rejectExtra('schedule remove', extra, 'one schedule id', '');
  return { kind: 'schedule remove', id: value };
}
