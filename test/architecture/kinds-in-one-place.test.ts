/**
 * Issue 36: a kind of change is one module (src/core/change/kinds/). The parser, the edit modal,
 * drift and the organization rules iterate the kind table; none of them names a kind, its
 * command, its intent field or the service field it changes. Adding a kind never touches them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KIND_COMMANDS, KIND_LIST } from '../../src/core/change/kinds/index.js';
import { COMMAND_CATALOGUE } from '../../src/core/command/catalogue.js';

/** Read commands whose word a kind shares (`query-endpoint SERVICE` reads, `… on` changes): the word is the read command's. */
const READ_COMMANDS = new Set(
  COMMAND_CATALOGUE.filter((spec) => !KIND_COMMANDS.includes(spec as never)).map((spec) => spec.name),
);

const GENERIC_FILES = [
  'src/core/command/parse.ts',
  'src/core/render/modal.ts',
  'src/core/summary/drift.ts',
  'src/core/summary/snapshot.ts',
  'src/core/summary/attribution.ts',
  'src/core/organization/rules.ts',
];

/** Every word that names a kind: its field, policy name, intent fields, commands and their first words. */
function kindWords(): string[] {
  const words = KIND_LIST.flatMap((kind) => [kind.field, kind.policyName, ...kind.intents]);
  const commands = KIND_COMMANDS.flatMap((command) => [command.name, command.name.split(' ')[0] ?? command.name]);
  // `name` is also every service's name, `tags` its tags and `key` a tag's key: as field names they
  // are not a kind; `api-key` is also who made a change (drift's actor), as the activity log says.
  // A read command whose word a kind shares (`query-endpoint SERVICE`) is the read command's.
  const generic = new Set(['name', 'tags', 'key', 'api-key', ...READ_COMMANDS]);
  return [...new Set([...words, ...commands])].filter((word) => !generic.has(word));
}

/** The code of a file without its comments (a comment may mention a kind as an example). */
function codeOf(path: string): string {
  return readFileSync(path, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:])\/\/.*$/gm, '$1');
}

describe('the generic layers name no kind of change', () => {
  // A word in quotes or after a dot, not followed by more of a word (`tag:` is a filter, not the tag command).
  it.each(GENERIC_FILES)('%s', (path) => {
    const code = codeOf(path);
    const named = kindWords().filter((word) =>
      new RegExp(`['"\`.]${word.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')}(?![\\w:-])`).test(code),
    );
    expect(named).toStrictEqual([]);
  });

  it('knows the words it looks for (so that an empty answer means something)', () => {
    expect(kindWords()).toEqual(
      expect.arrayContaining(['ip-access', 'ipAdd', 'core-dumps', 'enableCoreDumps', 'scale']),
    );
  });
});
