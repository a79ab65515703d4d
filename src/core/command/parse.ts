/**
 * Reads the text of a `/clickhouse ...` slash command into a Command. Pure and total: whatever
 * arrives, the answer is a Command, and every mistake becomes an "invalid" answer that tells the
 * person what is wrong, in their words, with the command's usage line. Services are not resolved
 * here (that needs the API); everything that can be checked without one is.
 */
import type { ChangeIntent } from '../change/types.js';
import {
  checkFilterWords,
  checkIpDescription,
  checkIpSource,
  checkReleaseChannel,
  checkReplicaMemory,
  checkReplicas,
  checkServiceName,
  checkSwitch,
  checkSwitchableProtocol,
  checkTagWord,
  echo,
  isSwitchWord,
  type Checked,
} from './arguments.js';
import {
  exampleOf,
  specOfName,
  suggestionsFor,
  usageForWords,
  usageOf,
  usagesOfGroup,
  type CommandName,
} from './catalogue.js';
import { normalizeSlackText, tokenize, type Token } from './tokenize.js';
import { durationProblem, TEMPORARY_MIN_MS } from '../change/temporary.js';
import { DURATION_FORMS, readSpokenDuration } from './duration.js';
import { checkReason, checkTicket, type Justification } from '../policy/justification.js';
import { readWhen, type WhenSpec } from './when.js';
import { DEFAULT_PERIOD, PERIODS, type PeriodName } from '../cost/period.js';

export type Command =
  /** `topic`: the words after `help` (`help scale`, `help ip`), lower case; absent: every command. */
  | { kind: 'help'; topic?: string }
  /** suggestions: the commands probably meant ("lst" → list), absent when none is close. */
  | { kind: 'unknown'; word: string; suggestions?: CommandName[] }
  | { kind: 'list'; filters: string[] }
  | { kind: 'show'; service: string }
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
const KINDS_ARE_CATALOGUE_NAMES: NamedKind extends CommandName ? true : never = true;
void KINDS_ARE_CATALOGUE_NAMES;

// A record rather than an array so that adding a kind to Command without listing it fails to compile.
const KINDS: Record<CommandKind, true> = {
  help: true,
  unknown: true,
  list: true,
  show: true,
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

/** A mistake in the command, thrown from deep in a handler and answered as "invalid". */
class UsageProblem extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
  }
}

function fail(name: CommandName, message: string): never {
  throw new UsageProblem(message, usageOf(name));
}

function must<T>(name: CommandName, checked: Checked<T>): T {
  if (checked.ok) return checked.value;
  return fail(name, checked.message);
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
  if (handler === undefined || first === undefined) return { kind: 'help' };
  return parseWords(first, args);
}

/** A command from its first word on (also the change after `breakglass`). */
function parseWords(first: Token, args: Token[]): Command {
  const firstWord = first.text.toLowerCase();
  if (firstWord === 'breakglass') return parseBreakglass(args);
  const handler = HANDLERS.get(firstWord) ?? (() => ({ kind: 'help' }) as const);
  const timed = splitWhen(firstWord, args);
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

/** One parser per first word of the catalogue: a catalogue entry without one does not compile. */
const PARSERS: Record<FirstWord<CommandName>, Handler> = {
  help: (args) =>
    args.length > 0 ? { kind: 'help', topic: args.map((arg) => arg.text.toLowerCase()).join(' ') } : { kind: 'help' },
  list: (args) => ({ kind: 'list', filters: filtersOf('list', args) }),
  summary: (args) => ({ kind: 'summary', filters: filtersOf('summary', args) }),
  cost: parseCost,
  show: (args) => ({ kind: 'show', service: onlyService('show', args) }),
  edit: (args) => ({ kind: 'edit', service: onlyService('edit', args) }),
  pending: parsePending,
  temporary: parseTemporary,
  history: (args) => ({ kind: 'history', ...optionalService('history', args) }),
  policy: (args) => ({ kind: 'policy', ...optionalService('policy', args) }),
  breakglass: (args) => parseBreakglass(args),
  rename: parseRename,
  ip: parseIp,
  endpoint: parseEndpoint,
  'release-channel': parseReleaseChannel,
  'private-endpoint': parsePrivateEndpoint,
  'rotate-key': parseRotateKey,
  tag: parseTag,
  scale: parseScale,
  idle: parseIdle,
  stop: (args) => parsePower('stop', args),
  start: (args) => parsePower('start', args),
  wake: (args) => parsePower('wake', args),
  schedule: parseSchedule,
};

// A Map, not the object itself, so that words like "constructor" or "__proto__" are just unknown.
const HANDLERS: ReadonlyMap<string, Handler> = new Map<string, Handler>(Object.entries(PARSERS));

// ---------------------------------------------------------------------------------------------
// Shared argument handling

const QUOTE_HINT = 'A service name with spaces goes in quotes, like "orders prod".';

function textOf(tokens: Token[]): string[] {
  return tokens.map((token) => token.text);
}

/** The first example of a command (its own or one of its other forms) that mentions `word`. */
function exampleAbout(name: CommandName, word: string): string {
  const spec = specOfName(name);
  return [spec.example, ...(spec.more ?? [])].find((example) => example.split(' ').includes(word)) ?? spec.example;
}

function missing(name: CommandName, what: string): never {
  return fail(name, `Tell me ${what}, like this: ${exampleOf(name)}`);
}

function rejectExtra(name: CommandName, extra: Token[], takes: string, hint = QUOTE_HINT): void {
  if (extra.length === 0) return;
  const unexpected = echo(textOf(extra).join(' '));
  fail(name, `${name} takes ${takes}, so I don't know what to do with ${unexpected}. ${hint}`.trim());
}

/** The SERVICE argument: one word (quoted if it has spaces), a name or an id, resolved later. */
function serviceOf(name: CommandName, token: Token | undefined, what: string): string {
  if (token === undefined) return missing(name, what);
  const service = token.text.trim();
  if (service === '') fail(name, `The service is empty. Give its name or id, like this: ${exampleOf(name)}`);
  return service;
}

/** An id argument (endpoint, key, schedule): a non-empty word, checked further where it is used. */
function idOf(name: CommandName, token: Token | undefined, what: string): string {
  if (token === undefined) return missing(name, what);
  const id = token.text.trim();
  if (id === '') fail(name, `The id is empty. Write it like this: ${exampleOf(name)}`);
  return id;
}

function onlyService(name: 'show' | 'edit', args: Token[]): string {
  const [service, ...extra] = args;
  const value = serviceOf(name, service, 'which service');
  rejectExtra(name, extra, 'one service');
  return value;
}

function filtersOf(name: 'list' | 'summary', args: Token[]): string[] {
  return must(name, checkFilterWords(textOf(args), { timeZoneAllowed: false })).filters;
}

type ChangeVerb = CommandName | 'private-endpoint attach' | 'private-endpoint detach';

function change(verb: ChangeVerb, service: string, intent: ChangeIntent, durationMs?: number): Command {
  return durationMs === undefined
    ? { kind: 'change', service, intent, verb }
    : { kind: 'change', service, intent, verb, durationMs };
}

/**
 * A trailing unquoted `for DURATION` makes ip add and endpoint … on temporary. The words before
 * it are returned. Words after a `for` that look like a duration but cannot be read are refused
 * with the accepted forms, never taken as a description: "for 2 hours" as a description would
 * grant access for good. A description that must contain such words goes in quotes.
 */
type TemporaryCommand = 'ip add' | 'endpoint' | 'scale' | 'idle' | 'stop' | 'start';

function splitDuration(
  name: TemporaryCommand,
  args: Token[],
  /** Where the optional words start: a service (or source) that happens to be called "for" is no duration. */
  from: number,
): { args: Token[]; durationMs?: number } {
  const fors = args.flatMap((token, at) =>
    at >= from && !token.quoted && token.text.toLowerCase() === 'for' ? [at] : [],
  );
  const last = fors.at(-1);
  if (last === undefined) return { args };
  const tail = textOf(args.slice(last + 1));
  const reading = readSpokenDuration(tail);
  const earlier = fors.slice(0, -1);
  if (reading.kind === 'duration') {
    if (reading.ms < TEMPORARY_MIN_MS) fail(name, durationProblem(reading.ms, Number.MAX_SAFE_INTEGER) ?? '');
    refuseDurationLike(name, args, earlier, last, 'Give one duration, once, at the end.');
    return { args: args.slice(0, last), durationMs: reading.ms };
  }
  // A single word after a trailing `for` has always been read as a duration ("for soon" is refused).
  if (reading.kind === 'unreadable' || tail.length <= 1) {
    const what =
      tail.length === 0
        ? 'The for at the end is not followed by a duration.'
        : `${echo(tail.join(' '))} is not a duration.`;
    fail(name, `${what} ${DURATION_FORMS}. ${QUOTED_DESCRIPTION}`);
  }
  refuseDurationLike(name, args, earlier, args.length, '');
  return { args };
}

const QUOTED_DESCRIPTION = 'If those words belong to the description, put the description in quotes.';

/** Refuses a `for` among `fors` whose words (up to `end`) look like a duration. */
function refuseDurationLike(name: TemporaryCommand, args: Token[], fors: number[], end: number, more: string): void {
  for (const at of fors) {
    const words = textOf(args.slice(at + 1, end));
    if (readSpokenDuration(words).kind === 'other') continue;
    const said = echo(`for ${words.join(' ')}`);
    fail(
      name,
      `${said} reads like a duration in the middle of the command. ${more} ${DURATION_FORMS}. ${QUOTED_DESCRIPTION}`.replace(
        '  ',
        ' ',
      ),
    );
  }
}

// ---------------------------------------------------------------------------------------------
// because "REASON" and ticket ID, anywhere after the arguments of any command that asks a change

/** Words before which `because`/`ticket` are never read as such: the service (after a sub-verb). */
const FIXED_WORDS: Readonly<Record<string, number>> = { ip: 2, tag: 2, 'private-endpoint': 2 };

type Justified = { args: Token[] } & Justification;

/**
 * Takes every unquoted `because "TEXT"` and `ticket ID` out of the arguments, before the
 * command's own parser sees them (as splitDuration does for `for DURATION`). `because` takes
 * exactly one quoted word, so it can never swallow a service, a description or a `for DURATION`;
 * the first words (the service) are never read as either, so a service named "ticket" still works.
 */
function splitJustification(firstWord: string, args: Token[]): Justified {
  const from = FIXED_WORDS[firstWord] ?? 1;
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
  const from = FIXED_WORDS[firstWord] ?? 1;
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
  if (command.durationMs === undefined)
    fail(
      'breakglass',
      `Break-glass changes are temporary: end the change with for DURATION (like for 1h), like this: ${exampleOf('breakglass')}. Only changes the bot can take back exactly can break glass: ip add, endpoint … mysql on, scale, idle, stop and start.`,
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
// Commands that request a change

function parseRename(args: Token[]): Command {
  const [service, ...nameWords] = args;
  const value = serviceOf('rename', service, 'the service and its new name');
  if (nameWords.length === 0) missing('rename', 'the new name after the service');
  // Unquoted words are joined by single spaces; a quoted name is taken as written.
  const name = must('rename', checkServiceName(textOf(nameWords).join(' ')));
  return change('rename', value, { name });
}

function parseIp(args: Token[]): Command {
  const [action, ...rest] = args;
  const word = action?.text.toLowerCase();
  if (word === 'add') return parseIpAdd(rest);
  if (word === 'remove') return parseIpRemove(rest);
  const message =
    action === undefined
      ? 'Say whether to add or remove an IP access list entry: ip add or ip remove.'
      : `ip can add or remove, not ${echo(action.text)}. Write ip add or ip remove.`;
  throw new UsageProblem(message, usagesOfGroup('ip'));
}

function parseIpAdd(words: Token[]): Command {
  const { args, durationMs } = splitDuration('ip add', words, 2);
  const [service, source, ...descriptionWords] = args;
  const what = 'the service and the IP address or CIDR block';
  const value = serviceOf('ip add', service, what);
  if (source === undefined) missing('ip add', what);
  const entry: { source: string; description?: string } = { source: must('ip add', checkIpSource(source.text)) };
  if (descriptionWords.length > 0) {
    entry.description = must('ip add', checkIpDescription(textOf(descriptionWords).join(' ')));
  }
  return change('ip add', value, { ipAdd: [entry] }, durationMs);
}

function parseIpRemove(args: Token[]): Command {
  const [service, source, ...extra] = args;
  const what = 'the service and the IP address or CIDR block to remove';
  const value = serviceOf('ip remove', service, what);
  if (source === undefined) missing('ip remove', what);
  const checked = must('ip remove', checkIpSource(source.text));
  rejectExtra('ip remove', extra, 'one service and one source (remove entries one at a time)');
  return change('ip remove', value, { ipRemove: [checked] });
}

function parseEndpoint(words: Token[]): Command {
  const { args, durationMs } = splitDuration('endpoint', words, 3);
  const [service, protocol, state, ...extra] = args;
  const what = 'the service, the endpoint (mysql) and on or off';
  const value = serviceOf('endpoint', service, what);
  if (protocol === undefined) missing('endpoint', what);
  if (state === undefined && isSwitchWord(protocol.text)) {
    fail('endpoint', `Name the endpoint before ${echo(protocol.text)}, like this: ${exampleOf('endpoint')}`);
  }
  must('endpoint', checkSwitchableProtocol(protocol.text));
  if (state === undefined) missing('endpoint', 'whether to switch it on or off');
  const enabled = must('endpoint', checkSwitch(state.text));
  rejectExtra('endpoint', extra, 'a service, mysql and on or off, then optionally for DURATION');
  if (durationMs !== undefined && !enabled)
    fail('endpoint', 'Only switching MySQL on can be temporary: the bot switches it off again when the time is up.');
  return change('endpoint', value, { mysqlEndpoint: enabled }, durationMs);
}

function parseReleaseChannel(args: Token[]): Command {
  const [service, channel, ...extra] = args;
  const what = 'the service and the channel (slow, default or fast)';
  const value = serviceOf('release-channel', service, what);
  if (channel === undefined) missing('release-channel', what);
  const releaseChannel = must('release-channel', checkReleaseChannel(channel.text));
  rejectExtra('release-channel', extra, 'a service and a channel');
  return change('release-channel', value, { releaseChannel });
}

function parsePrivateEndpoint(args: Token[]): Command {
  const [action, service, endpoint, ...extra] = args;
  const what = 'attach or detach, the service and the private endpoint id';
  if (action === undefined) missing('private-endpoint', what);
  const word = action.text.toLowerCase();
  if (word !== 'attach' && word !== 'detach') {
    const example = exampleOf('private-endpoint');
    fail('private-endpoint', `Say attach or detach first, not ${echo(action.text)}, like this: ${example}`);
  }
  const value = serviceOf('private-endpoint', service, what);
  const id = idOf('private-endpoint', endpoint, what);
  rejectExtra('private-endpoint', extra, 'one service and one endpoint id');
  const intent = word === 'attach' ? { privateEndpointAttach: [id] } : { privateEndpointDetach: [id] };
  return change(`private-endpoint ${word}`, value, intent);
}

function parseRotateKey(args: Token[]): Command {
  const [service, key, ...extra] = args;
  const what = 'the service and the new encryption key id';
  const value = serviceOf('rotate-key', service, what);
  const tdeKeyId = idOf('rotate-key', key, what);
  rejectExtra('rotate-key', extra, 'a service and one key id');
  return change('rotate-key', value, { tdeKeyId });
}

function parseTag(args: Token[]): Command {
  const [action, ...rest] = args;
  const word = action?.text.toLowerCase();
  if (word === 'add' || word === 'remove') return parseTagEdit(`tag ${word}`, rest);
  const message =
    action === undefined
      ? 'Say whether to add or remove tags: tag add or tag remove.'
      : `tag can add or remove, not ${echo(action.text)}. Write tag add or tag remove.`;
  throw new UsageProblem(message, usagesOfGroup('tag'));
}

function parseTagEdit(name: 'tag add' | 'tag remove', args: Token[]): Command {
  const [service, ...tagWords] = args;
  const what =
    name === 'tag add' ? 'the service and one or more tags (KEY or KEY=VALUE)' : 'the service and the tags to remove';
  const value = serviceOf(name, service, what);
  if (tagWords.length === 0) missing(name, what);
  const tags = tagWords.map((token) => must(name, checkTagWord(token.text.trim())));
  return change(name, value, name === 'tag add' ? { tagAdd: tags } : { tagRemove: tags });
}

// ---------------------------------------------------------------------------------------------
// Capacity and power

function parseScale(words: Token[]): Command {
  const { args, durationMs } = splitDuration('scale', words, 3);
  const [service, what, ...valueWords] = args;
  const asked = 'the service, replicas or memory, and the value';
  const value = serviceOf('scale', service, asked);
  if (what === undefined) missing('scale', asked);
  const word = what.text.toLowerCase();
  if (word !== 'replicas' && word !== 'replica' && word !== 'memory') {
    fail('scale', `scale sets replicas or memory, not ${echo(what.text)}, like this: ${exampleOf('scale')}`);
  }
  if (valueWords.length === 0) {
    const [what, example] =
      word === 'memory'
        ? ['the memory per replica in GB', exampleAbout('scale', 'memory')]
        : ['how many replicas', exampleAbout('scale', 'replicas')];
    fail('scale', `Tell me ${what}, like this: ${example}`);
  }
  const text = textOf(valueWords).join(' ');
  const intent =
    word === 'memory'
      ? { replicaMemoryGb: must('scale', checkReplicaMemory(text)) }
      : { replicas: must('scale', checkReplicas(text)) };
  return change('scale', value, intent, durationMs);
}

function parseIdle(words: Token[]): Command {
  const { args, durationMs } = splitDuration('idle', words, 2);
  const [service, state, ...rest] = args;
  const asked = 'the service and on or off';
  const value = serviceOf('idle', service, asked);
  if (state === undefined) missing('idle', asked);
  const enabled = must('idle', checkSwitch(state.text));
  if (rest.length === 0) return change('idle', value, { idleScaling: { enabled } }, durationMs);
  const [after, ...timeoutWords] = rest;
  if (!enabled || after?.text.toLowerCase() !== 'after') {
    rejectExtra('idle', rest, 'a service, on or off, then optionally after DURATION (with on) and for DURATION', '');
  }
  const timeout = readSpokenDuration(textOf(timeoutWords));
  if (timeout.kind !== 'duration') {
    fail('idle', `After how long? Write the idle timeout like after 15m or after 1h. ${DURATION_FORMS}.`);
  }
  const timeoutMinutes = timeout.ms / 60_000;
  return change('idle', value, { idleScaling: { enabled, timeoutMinutes } }, durationMs);
}

function parsePower(name: 'stop' | 'start' | 'wake', words: Token[]): Command {
  const temporary = name === 'wake' ? { args: words } : splitDuration(name, words, 1);
  const [service, ...extra] = temporary.args;
  const value = serviceOf(name, service, 'which service');
  const more =
    name === 'wake'
      ? 'one service (a woken service goes idle again by itself, so wake takes no for)'
      : 'one service, then optionally for DURATION';
  rejectExtra(name, extra, more);
  return change(name, value, { power: name }, 'durationMs' in temporary ? temporary.durationMs : undefined);
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
  const value = idOf('schedule remove', id, 'which schedule to remove (its id is in schedule list)');
  rejectExtra('schedule remove', extra, 'one schedule id', '');
  return { kind: 'schedule remove', id: value };
}
