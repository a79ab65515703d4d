/** A mistyped command is answered with the command probably meant (issue 22), not the whole help. */
import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../../src/core/command/parse.js';
import { suggestionBlocks } from '../../../src/core/render/help.js';

describe('a mistyped command', () => {
  it.each([
    ['lst', ['list']],
    ['LST', ['list']],
    ['lsit', ['list']],
    ['shwo orders-prod', ['show']],
    ['pendng', ['pending']],
    ['temp', ['temporary']],
    ['sumary', ['summary']],
    ['scheduel list', ['schedule list']],
    ['tga add orders-prod env=prod', ['tag add']],
    ['ipp remove orders-prod 10.0.0.1', ['ip remove']],
    ['ipp', ['ip add', 'ip remove']],
    ['rotate orders-prod key', ['rotate-key']],
    ['endpoints orders-prod mysql on', ['endpoint']],
  ])('"%s" suggests %j', (text, suggestions) => {
    expect(parseCommand(text)).toMatchObject({ kind: 'unknown', suggestions });
  });

  it.each(['frobnicate', 'x', 'constructor', 'deploy orders-prod', 'a'.repeat(500)])(
    'suggests nothing for %s, which is close to no command',
    (text) => {
      const command = parseCommand(text);
      expect(command.kind).toBe('unknown');
      expect(command).not.toHaveProperty('suggestions');
    },
  );

  it('is answered with the one help line of the command meant, not the whole help', () => {
    const text = JSON.stringify(suggestionBlocks('/clickhouse', 'lst', ['list']));
    expect(text).toContain('Did you mean `list`?');
    expect(text).toContain('/clickhouse list [tag:KEY[=VALUE] ...]');
    expect(text).not.toContain('schedule add');
  });

  it('escapes what was typed', () => {
    const text = JSON.stringify(suggestionBlocks('/clickhouse', '<!channel>lst', ['list']));
    expect(text).not.toContain('<!channel>');
  });
});
