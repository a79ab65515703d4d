/** Help and usage answers, built from the command catalogue so they never drift from the parser. */
import {
  COMMAND_CATALOGUE,
  specOfName,
  specsOfName,
  type CommandName,
  type CommandSpec,
} from '../command/catalogue.js';
import { parseCommand } from '../command/parse.js';
import { WHEN_MAX_AHEAD_DAYS, WHEN_MIN_AHEAD_MS } from '../command/when.js';
import { KIND_COMMANDS } from '../change/kinds/index.js';
import { formatDuration, TEMPORARY_MIN_MS } from '../change/durations.js';
import { commandAllowance } from '../organization/rules.js';
import type { ChannelRules } from '../organization/types.js';
import { code, context, esc, header, packLines, section, type Block } from './mrkdwn.js';

/**
 * Where help is asked: it lists what works there, each example as written. Without it (an
 * unknown word before the channel is known) every command is listed as the catalogue has it.
 */
export interface HelpContext {
  /** The channel's guardrails: a command or example they refuse is not offered. */
  rules: ChannelRules;
  /** Whether the policy file names anyone who may break glass; without a list `breakglass` cannot work. */
  breakGlass: boolean;
  /** A schedule of this channel, so that `schedule remove`'s example names one that exists. */
  scheduleId?: string;
  /** TEMPORARY_MAX_SECONDS in ms: how long `for DURATION` may be here. */
  temporaryMaxMs?: number;
}

export function helpBlocks(slashCommand: string, lead?: string, here?: HelpContext): Block[] {
  const lines = COMMAND_CATALOGUE.flatMap((spec) => {
    const line = helpLine(slashCommand, spec, here);
    return line === undefined ? [] : [line];
  });
  return [
    header('ClickHouse Cloud bot'),
    ...(lead ? [section(lead)] : []),
    ...packLines(lines, 20, (n) => `…and ${n} more`),
    context(
      'SERVICE is a service id or name; quote names with spaces. Every change becomes a request that a colleague approves in the channel; add `because "REASON"` and `ticket ID` after its arguments when a policy rule asks for them. Add `at TIME` (`at 2026-12-01 09:00`, `at 09:00`, `at monday 06:00`, optionally `tz:Europe/Berlin`) to any change to have it approved now and applied then.',
    ),
  ];
}

/**
 * A command's usage, what it does, and an example of each of its forms that works here; nothing
 * when none of its forms may run here (the channel's `allow` list, no break-glass list).
 */
function helpLine(slashCommand: string, spec: CommandSpec, here?: HelpContext): string | undefined {
  const examples = here ? examplesHere(spec, here) : [spec.example, ...(spec.more ?? [])];
  if (examples === undefined) return undefined;
  const usage = `${code(`${slashCommand} ${spec.usage}`)}\n${esc(spec.summary)}`;
  if (examples.length === 0) return usage;
  return `${usage} _e.g._ ${examples.map((example) => code(`${slashCommand} ${example}`)).join(', ')}`;
}

/** The forms of a command that work here; undefined when the command itself does not. */
function examplesHere(spec: CommandSpec, here: HelpContext): string[] | undefined {
  if (spec.name === 'breakglass' && !here.breakGlass) return undefined;
  if (spec.name === 'schedule remove') {
    if (!commandAllowance(here.rules, parseCommand(spec.example)).allowed) return undefined;
    return here.scheduleId === undefined ? [] : [`schedule remove ${here.scheduleId}`];
  }
  const allowed = [spec.example, ...(spec.more ?? [])].filter(
    (example) => commandAllowance(here.rules, parseCommand(example)).allowed,
  );
  return allowed.length > 0 ? allowed : undefined;
}

/** The commands an empty `/clickhouse` offers: where people start. */
const FIRST_STEPS: readonly CommandName[] = ['list', 'show', 'edit', 'pending', 'cost'];

/** An empty `/clickhouse`: the few commands people use first (those allowed here), and the way to the rest. */
export function overviewBlocks(slashCommand: string, here?: HelpContext): Block[] {
  const lines = FIRST_STEPS.flatMap((name) => helpLine(slashCommand, specOfName(name), here) ?? []);
  return [
    header('ClickHouse Cloud bot'),
    section('Type a command after the slash command. Where most people start:'),
    ...packLines(lines, 20, (n) => `…and ${n} more`),
    context(`${code(`${slashCommand} help`)} lists every command; ${code(`${slashCommand} help scale`)} explains one.`),
  ];
}

/**
 * `help WORD`: that command (or its group) only, each form with its examples that work here; a
 * word that names no command gets the likely ones, or the way to the whole list.
 */
export function topicHelpBlocks(
  slashCommand: string,
  topic: string,
  names: readonly CommandName[],
  here?: HelpContext,
): Block[] {
  const everything = context(`${code(`${slashCommand} help`)} lists every command.`);
  // Nothing close ("help me please"): the whole help answers it better than a refusal.
  if (names.length === 0)
    return helpBlocks(
      slashCommand,
      `:grey_question: ${code(topic)} is not a command I know. Here is what I can do:`,
      here,
    );
  const lines = names.flatMap((name) =>
    specsOfName(name).flatMap((spec) => {
      const line = helpLine(slashCommand, spec, here);
      return line === undefined ? [] : [withBounds(line, spec, here)];
    }),
  );
  if (lines.length === 0)
    return [section(`:no_entry_sign: ${code(topic)} is not available in this channel.`), everything];
  const exact = names.some((name) => name === topic.trim());
  return [
    ...(exact ? [] : [section(`:grey_question: Did you mean ${names.map((name) => code(name)).join(' or ')}?`)]),
    ...packLines(lines, 20, (n) => `…and ${n} more`),
    everything,
  ];
}

const CHANGE_COMMANDS: ReadonlySet<string> = new Set(KIND_COMMANDS.map((command) => command.name));

/**
 * `help COMMAND` only: under the command's line, the bounds of its values (from the constants its
 * checks use), of `for DURATION` where it takes one (this deployment's maximum) and of `at TIME`.
 */
function withBounds(line: string, spec: CommandSpec, here?: HelpContext): string {
  const bounds = [...(spec.bounds ?? [])];
  if (spec.usage.includes('for DURATION')) {
    const most = here?.temporaryMaxMs === undefined ? '' : ` to ${formatDuration(here.temporaryMaxMs)}`;
    bounds.push(`for DURATION: from ${formatDuration(TEMPORARY_MIN_MS)}${most}, like 30m, 2h or 3d.`);
  }
  if (CHANGE_COMMANDS.has(spec.name))
    bounds.push(
      `at TIME: at least ${formatDuration(WHEN_MIN_AHEAD_MS)} ahead and at most ${WHEN_MAX_AHEAD_DAYS} days ahead.`,
    );
  if (bounds.length === 0) return line;
  return `${line}\n${bounds.map((bound) => `• ${esc(bound)}`).join('\n')}`;
}

export function invalidBlocks(slashCommand: string, message: string, usage: string): Block[] {
  return [
    section(`:warning: ${esc(message)}\nUsage: ${code(`${slashCommand} ${usage}`)}`),
    context(`${code(`${slashCommand} help`)} lists every command.`),
  ];
}

/**
 * The answer to a mistyped command ("lst"): the likely command's one help line, not the whole
 * help, which buries it.
 */
export function suggestionBlocks(slashCommand: string, typed: string, suggestions: readonly CommandName[]): Block[] {
  const names = suggestions.map((name) => code(name));
  const question = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
  const lines = suggestions.map((name) => helpLine(slashCommand, specOfName(name)) ?? '');
  return [
    section(`:grey_question: ${code(typed)} is not a command I know. Did you mean ${question ?? ''}?`),
    section(lines.join('\n')),
    context(`${code(`${slashCommand} help`)} lists every command.`),
  ];
}
