import { describe, expect, it } from 'vitest';
import {
  bold,
  code,
  context,
  esc,
  header,
  LIMITS,
  packLines,
  section,
  slackDate,
  truncate,
} from '../../../src/core/render/mrkdwn.js';
import { assertBlockKitLimits, blockKitViolations, mrkdwnTexts, unsafeMrkdwn } from './block-kit.js';

describe('esc', () => {
  it('turns Slack control characters into entities', () => {
    expect(esc('<!channel> & <@U123> <http://evil|click>')).toBe(
      '&lt;!channel&gt; &amp; &lt;@U123&gt; &lt;http://evil|click&gt;',
    );
  });

  it.each(['@channel', '@here', '@everyone', '@Channel', '@HERE'])('takes the power out of a bare %s', (mass) => {
    const out = esc(`hi ${mass}!`);
    expect(out).not.toMatch(/@(channel|here|everyone)\b/i);
    expect(out.replace('\u200B', '')).toBe(`hi ${mass}!`);
  });

  it('leaves @channelling and e-mail addresses alone', () => {
    expect(esc('@channelling ops@example.com')).toBe('@channelling ops@example.com');
  });

  it('reads undefined and null as empty', () => {
    expect(esc(undefined)).toBe('');
    expect(esc(null)).toBe('');
  });

  it('escapes an ampersand once, not twice', () => {
    expect(esc('a &amp; b')).toBe('a &amp;amp; b');
  });
});

describe('code', () => {
  it('wraps data in backticks after escaping it', () => {
    expect(code('10.0.0.0/8 <x>')).toBe('`10.0.0.0/8 &lt;x&gt;`');
  });

  it('keeps a backtick in the data from closing the span', () => {
    const out = code('a`b``c');
    expect(out.slice(1, -1)).not.toContain('`');
    expect(out.startsWith('`') && out.endsWith('`')).toBe(true);
  });

  it('renders nothing for empty data, not an empty span', () => {
    expect(code('')).toBe('');
    expect(code(undefined)).toBe('');
  });
});

describe('bold', () => {
  it('wraps data in asterisks with no asterisk inside', () => {
    const out = bold('a*b* <!here>');
    expect(out.startsWith('*') && out.endsWith('*')).toBe(true);
    expect(out.slice(1, -1)).not.toContain('*');
    expect(out).toContain('&lt;!here&gt;');
  });

  it('keeps a backtick in a name from opening a code span', () => {
    expect(bold('a`b').slice(1, -1)).not.toContain('`');
  });

  it('renders nothing for empty data', () => {
    expect(bold('')).toBe('');
  });
});

describe('truncate', () => {
  it('leaves short text alone', () => {
    expect(truncate('abc', 3)).toBe('abc');
  });

  it('cuts long text to the limit, ending with an ellipsis', () => {
    const out = truncate('abcdef', 4);
    expect(out).toBe('abc…');
    expect([...out]).toHaveLength(4);
  });

  it('never splits an emoji in half', () => {
    const out = truncate('🚀'.repeat(10), 5);
    expect(out).toBe('🚀🚀🚀🚀…');
  });
});

describe('block builders', () => {
  it('truncates section and context text to 3000 characters', () => {
    assertBlockKitLimits([section('x'.repeat(5000)), context('y'.repeat(5000))], { max: 50 });
  });

  it('truncates a header to 150 characters of plain text', () => {
    const block = header('h'.repeat(400));
    assertBlockKitLimits([block], { max: 50 });
    expect(block).toMatchObject({ type: 'header', text: { type: 'plain_text' } });
  });

  it('slackDate renders in the reader time zone with an ISO fallback', () => {
    expect(slackDate(Date.UTC(2025, 0, 15, 12, 0, 0, 999))).toBe(
      '<!date^1736942400^{date_short_pretty} at {time}|2025-01-15T12:00:00.999Z>',
    );
    expect(slackDate(0, '{time_secs}')).toBe('<!date^0^{time_secs}|1970-01-01T00:00:00.000Z>');
  });
});

describe('packLines', () => {
  const lines = (count: number, length = 100) => Array.from({ length: count }, (_, i) => `${i}:`.padEnd(length, 'x'));

  it('puts few lines in one section', () => {
    const blocks = packLines(lines(3), 10, (n) => `${n} more`);
    expect(blocks).toHaveLength(1);
    expect(mrkdwnTexts(blocks)[0]?.split('\n')).toHaveLength(3);
  });

  it('returns no block for no lines', () => {
    expect(packLines([], 10, (n) => `${n} more`)).toStrictEqual([]);
  });

  it('spreads lines over sections of at most 3000 characters, in order', () => {
    const input = lines(100);
    const blocks = packLines(input, 10, (n) => `${n} more`);
    assertBlockKitLimits(blocks, { max: 50 });
    expect(blocks.length).toBeGreaterThan(1);
    expect(mrkdwnTexts(blocks).join('\n').split('\n')).toStrictEqual(input);
  });

  it('stops at the block budget and counts what it hid', () => {
    const input = lines(1000);
    const blocks = packLines(input, 5, (n) => `_…and ${n} more_`);
    expect(blocks).toHaveLength(5);
    assertBlockKitLimits(blocks, { max: 50 });
    const shown = mrkdwnTexts(blocks).join('\n').split('\n');
    const last = shown.pop();
    const hidden = Number(/and (\d+) more/.exec(last ?? '')?.[1]);
    expect(shown.length + hidden).toBe(1000);
    expect(shown).toStrictEqual(input.slice(0, shown.length));
  });

  it('truncates a single line longer than a section', () => {
    const blocks = packLines(['a'.repeat(10_000), 'b'], 5, (n) => `${n} more`);
    assertBlockKitLimits(blocks, { max: 50 });
    expect(mrkdwnTexts(blocks).join('\n')).toContain('…');
    expect(mrkdwnTexts(blocks).at(-1)).toBe('b');
  });

  it('stays within one block when allowed only one', () => {
    const blocks = packLines(lines(500), 1, (n) => `${n} more`);
    expect(blocks).toHaveLength(1);
    assertBlockKitLimits(blocks, { max: 50 });
  });
});

describe('the Block Kit limit checker itself', () => {
  it('catches each kind of violation', () => {
    const option = (text: string, value: string) => ({ text: { type: 'plain_text', text }, value });
    const problems = blockKitViolations(
      [
        { type: 'section', text: { type: 'mrkdwn', text: 'x'.repeat(3001) } },
        { type: 'section', fields: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'f' })) },
        { type: 'section', fields: [{ type: 'mrkdwn', text: 'f'.repeat(2001) }] },
        { type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } },
        { type: 'context', elements: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'c' })) },
        {
          type: 'actions',
          elements: [
            { type: 'button', action_id: 'a', text: { type: 'plain_text', text: 'b' }, value: 'v'.repeat(2001) },
          ],
        },
        {
          type: 'input',
          block_id: 'sel',
          label: { type: 'plain_text', text: 'l' },
          element: {
            type: 'static_select',
            action_id: 'x',
            options: [
              option('o'.repeat(76), 'v'),
              option('o', 'v'.repeat(76)),
              ...Array.from({ length: 99 }, (_, i) => option('o', `v${i}`)),
            ],
          },
        },
        {
          type: 'input',
          block_id: 'sel',
          label: { type: 'plain_text', text: 'l' },
          element: {
            type: 'multi_static_select',
            action_id: 'x',
            option_groups: Array.from({ length: 101 }, () => ({
              label: { type: 'plain_text', text: 'g' },
              options: [option('o', 'v')],
            })),
          },
        },
      ],
      { max: 50 },
    );
    expect(problems.some((p) => p.includes('section: text of 3001'))).toBe(true);
    expect(problems.some((p) => p.includes('11 fields'))).toBe(true);
    expect(problems.some((p) => p.includes('field 0: text of 2001'))).toBe(true);
    expect(problems.some((p) => p.includes('header: text of 151'))).toBe(true);
    expect(problems.some((p) => p.includes('11 context elements'))).toBe(true);
    expect(problems.some((p) => p.includes('button value > 2000'))).toBe(true);
    expect(problems.some((p) => p.includes('101 options > 100'))).toBe(true);
    expect(problems.some((p) => p.includes('option 0: text of 76'))).toBe(true);
    expect(problems.some((p) => p.includes('option 1: value'))).toBe(true);
    expect(problems.some((p) => p.includes('101 option groups'))).toBe(true);
    expect(problems.some((p) => p.includes('duplicate block_id sel'))).toBe(true);
    expect(
      blockKitViolations(
        Array.from({ length: 51 }, () => ({ type: 'divider' })),
        { max: 50 },
      ),
    ).toStrictEqual(['51 blocks > 50']);
  });

  it('flags raw control sequences but allows the bot’s own dates and known mentions', () => {
    expect(unsafeMrkdwn(`${slackDate(0)} by <@U0REQ>`, ['U0REQ'])).toStrictEqual([]);
    expect(unsafeMrkdwn('<@U0OTHER>', ['U0REQ'])).not.toStrictEqual([]);
    expect(unsafeMrkdwn('<!channel>')).not.toStrictEqual([]);
    expect(unsafeMrkdwn('<http://evil|click>')).not.toStrictEqual([]);
    expect(unsafeMrkdwn('a & b')).not.toStrictEqual([]);
    expect(unsafeMrkdwn('@here')).not.toStrictEqual([]);
    expect(unsafeMrkdwn('a &amp; b &lt;!here&gt; @\u200Bhere')).toStrictEqual([]);
  });
});

it('LIMITS match Slack’s documented numbers', () => {
  expect(LIMITS).toMatchObject({
    messageBlocks: 50,
    modalBlocks: 100,
    sectionText: 3000,
    sectionFields: 10,
    fieldText: 2000,
    headerText: 150,
    plainOption: 75,
    optionValue: 75,
    buttonValue: 2000,
    privateMetadata: 3000,
    staticSelectOptions: 100,
    contextElements: 10,
  });
});
