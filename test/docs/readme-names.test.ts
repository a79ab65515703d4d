/**
 * The README names commands and settings a newcomer will type (issue 41): each must exist, so a
 * renamed command or a removed setting cannot leave the first page promising something the bot
 * no longer has. Commands are checked against the catalogue (the parser's own list), settings
 * against the config schema.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMAND_CATALOGUE } from '../../src/core/command/catalogue.js';
import { SETTING_NAMES } from '../../src/config.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const NAMES = new Set(COMMAND_CATALOGUE.map((spec) => spec.name));

/** A command as typed after the slash command names a catalogue entry by its first word or two. */
function isCommand(typed: string): boolean {
  const words = typed.trim().split(/\s+/);
  return NAMES.has(words[0] ?? '') || NAMES.has(words.slice(0, 2).join(' '));
}

/** `/clickhouse …` code spans, and the other forms a row of the commands table lists after " / ". */
function commandsNamed(text: string): string[] {
  // `/clickhouse …` (any command) names none.
  const typed = [...text.matchAll(/`\/clickhouse ([a-z][^`]*)`/g)].map((match) => match[1] ?? '');
  const otherForms = [...text.matchAll(/^\| `\/clickhouse [^|]*?\|/gm)].flatMap((row) =>
    (row[0] ?? '')
      .split(' / ')
      .slice(1)
      .flatMap((form) => [...form.matchAll(/`([a-z][^`]*)`/g)].map((match) => match[1] ?? '')),
  );
  return [...typed, ...otherForms];
}

/** Capitals in code spans that are not settings: a time zone and a signal. */
const NOT_SETTINGS = new Set(['UTC', 'SIGHUP']);

/** ALL_CAPS names with an underscore anywhere, and single-word ones in code spans (`PORT`), outside command spans. */
function settingsNamed(text: string): string[] {
  const prose = text.replace(/`\/clickhouse [^`]+`/g, '');
  const joined = [...prose.matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g)].map((match) => match[0]);
  const single = [...prose.matchAll(/`([A-Z][A-Z0-9]{2,})`/g)].map((match) => match[1] ?? '');
  return [...new Set([...joined, ...single])].filter((name) => !NOT_SETTINGS.has(name));
}

describe('the README names only what exists', () => {
  it('every /clickhouse command it shows is in the command catalogue', () => {
    const named = commandsNamed(readme);
    expect(named.length).toBeGreaterThan(30);
    expect(named.filter((typed) => !isCommand(typed))).toEqual([]);
    // The check can fail: a word the catalogue lacks is caught.
    expect(
      commandsNamed('`/clickhouse frobnicate orders-prod` | `/clickhouse list`').filter((t) => !isCommand(t)),
    ).toEqual(['frobnicate orders-prod']);
  });

  it('every setting it names is one the config schema reads', () => {
    const settings: readonly string[] = SETTING_NAMES;
    const named = settingsNamed(readme);
    expect(named).toEqual(expect.arrayContaining(['SLACK_BOT_TOKEN', 'CONSOLE_URL', 'PORT']));
    expect(named.filter((name) => !settings.includes(name))).toEqual([]);
    expect(
      settingsNamed('set `CONSOLE_LINKS` or CLICKHOUSE_TOKEN')
        .filter((n) => !settings.includes(n))
        .sort(),
    ).toEqual(['CLICKHOUSE_TOKEN', 'CONSOLE_LINKS']);
  });
});
