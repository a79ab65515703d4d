/** Help and usage answers, built from the command catalogue so they never drift from the parser. */
import { COMMAND_CATALOGUE, specOfName, type CommandName, type CommandSpec } from '../command/catalogue.js';
import { code, context, esc, header, packLines, section, type Block } from './mrkdwn.js';

export function helpBlocks(slashCommand: string, lead?: string): Block[] {
  const lines = COMMAND_CATALOGUE.map((c) => helpLine(slashCommand, c));
  return [
    header('ClickHouse Cloud bot'),
    ...(lead ? [section(lead)] : []),
    ...packLines(lines, 20, (n) => `…and ${n} more`),
    context(
      'SERVICE is a service id or name; quote names with spaces. Every change becomes a request that a colleague approves in the channel; add `because "REASON"` and `ticket ID` after its arguments when a policy rule asks for them. Add `at TIME` (`at 2026-12-01 09:00`, `at 09:00`, `at monday 06:00`, optionally `tz:Europe/Berlin`) to any change to have it approved now and applied then.',
    ),
  ];
}

/** A command's usage, what it does, and an example of each of its forms. */
function helpLine(slashCommand: string, spec: CommandSpec): string {
  const examples = [spec.example, ...(spec.more ?? [])].map((example) => code(`${slashCommand} ${example}`));
  return `${code(`${slashCommand} ${spec.usage}`)}\n${esc(spec.summary)} _e.g._ ${examples.join(', ')}`;
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
  const lines = suggestions.map((name) => helpLine(slashCommand, specOfName(name)));
  return [
    section(`:grey_question: ${code(typed)} is not a command I know. Did you mean ${question ?? ''}?`),
    section(lines.join('\n')),
    context(`${code(`${slashCommand} help`)} lists every command.`),
  ];
}
