/**
 * Every command the bot understands, in the order help lists them. The usage line is what an
 * "invalid" answer quotes back, so it is the one place a command's syntax is spelled out for people.
 * Usage and example lines leave out the slash command itself (/clickhouse), which is configurable.
 */

import { KIND_COMMANDS } from '../change/kinds/index.js';
import type { CommandSpec } from './reader.js';

export type { CommandSpec } from './reader.js';

/** The commands before the changes in help: how to look around. */
const FIRST_COMMANDS = [
  {
    name: 'help',
    usage: 'help',
    example: 'help',
    summary: 'Show the commands and how to write them.',
  },
  {
    name: 'list',
    usage: 'list [tag:KEY[=VALUE] ...]',
    example: 'list tag:env=prod',
    summary: 'List services, optionally only those carrying the given tags.',
  },
  {
    name: 'show',
    usage: 'show SERVICE',
    example: 'show orders-prod',
    summary: "Show a service's settings, endpoints and IP access list.",
  },
  {
    name: 'health',
    usage: 'health SERVICE',
    example: 'health orders-prod',
    summary: 'How loaded a service is right now: queries running, memory in use per replica against its size.',
  },
  {
    name: 'query-endpoint',
    usage: 'query-endpoint SERVICE',
    example: 'query-endpoint orders-prod',
    summary: "Whether a service's Query API endpoint is on, its role, the API keys allowed and from which origins.",
  },
  {
    name: 'upgrade-window',
    usage: 'upgrade-window SERVICE',
    example: 'upgrade-window orders-prod',
    summary: 'When ClickHouse Cloud may upgrade a service: its weekly window in UTC and the next one in your time.',
  },
  {
    name: 'scaling-schedule',
    usage: 'scaling-schedule SERVICE',
    example: 'scaling-schedule orders-prod',
    summary: "A service's scaling schedule: its entries in UTC, the one in force now, and the base configuration.",
  },
  {
    name: 'backups',
    usage: 'backups SERVICE',
    example: 'backups orders-prod',
    summary: "A service's last good backup, how it is backed up, and its latest backups.",
  },
  {
    name: 'edit',
    usage: 'edit SERVICE',
    example: 'edit orders-prod',
    summary: 'Open a form to request several changes to a service at once.',
  },
] as const satisfies readonly CommandSpec[];

const READING_COMMANDS = [
  {
    name: 'members',
    usage: 'members [ROLE]',
    example: 'members Admin',
    more: ['members'],
    summary: "The organization's people: name, email, roles, when they joined; with ROLE, only those holding it.",
  },
  {
    name: 'roles',
    usage: 'roles',
    example: 'roles',
    summary: "The organization's roles, system and custom, with how many members and keys hold each.",
  },
  {
    name: 'keys',
    usage: 'keys',
    example: 'keys',
    summary:
      "The organization's API keys: state, roles, last use, expiry; never-expiring, unused and admin keys flagged.",
  },
  {
    name: 'pending',
    usage: 'pending',
    example: 'pending',
    summary: "List this channel's change requests waiting for approval.",
  },
  {
    name: 'temporary',
    usage: 'temporary',
    example: 'temporary',
    summary: "List this channel's active temporary changes and when the bot reverts them.",
  },
  {
    name: 'history',
    usage: 'history [SERVICE]',
    example: 'history orders-prod',
    summary: 'Show recent changes, for all services or one.',
  },
  {
    name: 'breakglass',
    usage: 'breakglass CHANGE COMMAND for DURATION because "REASON"',
    example: 'breakglass ip add orders-prod 203.0.113.9 laptop for 1h because "INC-7 dashboards down"',
    summary:
      "Apply a temporary change at once, without approval, windows or freezes (never past a deny rule): only for the policy file's break-glass list; announced and reviewed afterwards.",
  },
  {
    name: 'policy',
    usage: 'policy [SERVICE]',
    example: 'policy orders-prod',
    summary: 'Show the approval rules: all of them, or what each kind of change to one service needs.',
  },
  {
    name: 'summary',
    usage: 'summary [tag:KEY[=VALUE] ...]',
    example: 'summary tag:team=data',
    summary: 'Summarise the services, optionally only those carrying the given tags.',
  },
  {
    name: 'cost',
    usage: 'cost [SERVICE | tag:KEY[=VALUE] ...] [7d|30d|90d]',
    example: 'cost tag:env=prod 30d',
    summary: 'Spend per service for the last 7, 30 or 90 days against the period before, with a chart.',
    more: ['cost orders-prod', 'cost 90d'],
  },
  {
    name: 'schedule add',
    usage: 'schedule add "CRON" [tag:KEY[=VALUE] ...] [tz:Area/City] [chart:on]',
    example: 'schedule add "0 9 * * 1-5" tag:env=prod tz:Europe/Berlin',
    summary: 'Post a summary to this channel on a schedule; chart:on adds the daily spend chart.',
    more: ['schedule add "0 9 * * 1" chart:on'],
  },
  {
    name: 'schedule list',
    usage: 'schedule list',
    example: 'schedule list',
    summary: "List this channel's scheduled summaries.",
  },
  {
    name: 'schedule remove',
    usage: 'schedule remove ID',
    example: 'schedule remove sch-3fa9c1',
    summary: 'Stop a scheduled summary (the ID is in schedule list).',
  },
] as const satisfies readonly CommandSpec[];

/** A command that reads or runs the bot, as the compiler knows them (the change commands are the kinds'). */
export type BaseCommandName = (typeof FIRST_COMMANDS)[number]['name'] | (typeof READING_COMMANDS)[number]['name'];
/** Any command's name: a base command, or a change command declared by its kind module (core/change/kinds). */
export type CommandName = BaseCommandName | (string & {});

/** The commands that are not changes (they read, or manage the bot's own things). */
export const BASE_COMMAND_NAMES: readonly BaseCommandName[] = [...FIRST_COMMANDS, ...READING_COMMANDS].map(
  (spec) => spec.name,
);

/** Every command, in the order help lists them: looking around, the changes kind by kind, then the rest. */
export const COMMAND_CATALOGUE: readonly CommandSpec[] = [...FIRST_COMMANDS, ...KIND_COMMANDS, ...READING_COMMANDS];

function specOf(name: string): CommandSpec | undefined {
  return COMMAND_CATALOGUE.find((spec) => spec.name === name);
}

/** The usage line of a command. */
export function usageOf(name: CommandName): string {
  return specOf(name)?.usage ?? name;
}

/** The example of a command, for messages that show how to write it. */
export function exampleOf(name: CommandName): string {
  return specOf(name)?.example ?? name;
}

/**
 * The usage lines of every command starting with `word`, one per line: what to show when someone
 * types "ip" or "schedule" without saying which of its commands they mean.
 */
export function usagesOfGroup(word: string): string {
  return COMMAND_CATALOGUE.filter((spec) => spec.name.split(' ')[0] === word)
    .map((spec) => spec.usage)
    .join('\n');
}

/**
 * The usage that best fits the first words of a command, for problems found before the command
 * is known (an unclosed quote, text too long): the command's own line, its group's lines, or help.
 */
export function usageForWords(words: readonly string[]): string {
  const [first = '', second = ''] = words.map((word) => word.toLowerCase());
  const spec = specOf(`${first} ${second}`) ?? specOf(first);
  if (spec !== undefined) return spec.usage;
  return usagesOfGroup(first) || usageOf('help');
}

/** Optimal string alignment distance: edits, with a swap of two neighbours ("shwo") as one. */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      const row = rows[i];
      if (row) row[j] = best;
    }
  }
  return at(a.length, b.length);
}

/** How far a word may be from a command to be taken for a typo of it: 1 for short words, more for long ones. */
const allowedDistance = (word: string) => Math.max(1, Math.floor(word.length / 3));

/** Words longer than any command by this much are not typos of one (and cost nothing to reject). */
const LONGEST_WORD = 40;

/**
 * The commands someone probably meant by an unknown first word ("lst" → list, "shwo" → show,
 * "temp" → temporary), narrowed by the next word for groups ("tga add" → tag add). Empty when
 * nothing is close: a guess that is far off helps less than the whole help.
 */
export function suggestionsFor(typed: string, next = ''): CommandName[] {
  const word = typed.toLowerCase();
  if (word.length === 0 || word.length > LONGEST_WORD) return [];
  const firstWords = [...new Set(COMMAND_CATALOGUE.map((spec) => spec.name.split(' ')[0] ?? spec.name))];
  const scored = firstWords
    .map((first) => ({
      first,
      score: word.length >= 3 && first.startsWith(word) ? 0.5 : distance(word, first),
    }))
    .filter(({ score }) => score <= allowedDistance(word))
    .sort((a, b) => a.score - b.score);
  const best = scored[0]?.score;
  const chosen = scored.filter(({ score }) => score === best).map(({ first }) => first);
  const names = COMMAND_CATALOGUE.filter((spec) => chosen.includes(spec.name.split(' ')[0] ?? '')).map(
    (spec) => spec.name,
  );
  const second = next.toLowerCase();
  const narrowed = names.filter((name) => {
    const [, sub] = name.split(' ');
    return sub !== undefined && second !== '' && distance(second, sub) <= allowedDistance(sub);
  });
  return (narrowed.length > 0 ? narrowed : names).slice(0, 3);
}

/**
 * The commands a `help` topic names: the command itself (`scale`, `ip add`), or every command of a
 * group (`ip`, `schedule`); else the likely ones for a typo (`help scael`). Empty: nothing close.
 */
export function commandsOfTopic(topic: string): CommandName[] {
  const [first = '', second = ''] = topic.trim().toLowerCase().split(/\s+/u);
  const exact = COMMAND_CATALOGUE.filter((spec) => spec.name === `${first} ${second}`.trim() || spec.name === first);
  if (exact.length > 0) return [...new Set(exact.map((spec) => spec.name))];
  const group = COMMAND_CATALOGUE.filter((spec) => spec.name.split(' ')[0] === first);
  if (group.length > 0) return [...new Set(group.map((spec) => spec.name))];
  return suggestionsFor(first, second);
}

/** Every catalogue entry of a name: a word may name a read and a change (`scaling-schedule SERVICE` and its changes). */
export function specsOfName(name: CommandName): CommandSpec[] {
  const specs = COMMAND_CATALOGUE.filter((spec) => spec.name === name);
  return specs.length > 0 ? specs : [specOfName(name)];
}

/** A command's catalogue entry. */
export function specOfName(name: CommandName): CommandSpec {
  return specOf(name) ?? { name, usage: name, example: name, summary: '' };
}
