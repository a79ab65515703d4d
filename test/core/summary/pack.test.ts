import { describe, expect, it } from 'vitest';
import { DETAIL_BUDGET, packParts, type DetailPart } from '../../../src/core/summary/index.js';
import { mrkdwnTexts } from '../render/block-kit.js';

/** Lines of varied length, so sections and messages fill up at uneven points. */
const lines = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}-${i} ${'x'.repeat((i * 37) % 400)}`);

const part = (name: string, count: number): DetailPart => ({
  title: `*${name}*`,
  continuedTitle: `*${name}* (continued)`,
  lines: lines(name, count),
});

describe('packParts', () => {
  const parts = [part('Changes', 700), part('Posture', 3), part('Services', 1500)];
  const messages = packParts(parts);
  const sectionLines = messages.flatMap((blocks) => mrkdwnTexts(blocks).flatMap((text) => text.split('\n')));

  it('keeps every line, in order, and drops none', () => {
    const headings = new Set(parts.flatMap((p) => [p.title, p.continuedTitle]));
    expect(sectionLines.filter((line) => !headings.has(line))).toStrictEqual(parts.flatMap((p) => p.lines));
  });

  it('keeps each message within its block and text budget', () => {
    for (const blocks of messages) {
      expect(blocks.length).toBeLessThanOrEqual(DETAIL_BUDGET.messageBlocks);
      expect(mrkdwnTexts(blocks).join('').length).toBeLessThanOrEqual(DETAIL_BUDGET.messageChars);
      for (const text of mrkdwnTexts(blocks)) expect(text.length).toBeLessThanOrEqual(DETAIL_BUDGET.sectionChars);
    }
  });

  it('repeats the heading when a part continues into the next message, and never leaves a heading alone', () => {
    const headings = new Set(parts.flatMap((p) => [p.title, p.continuedTitle]));
    messages.forEach((blocks, i) => {
      const texts = mrkdwnTexts(blocks);
      if (i > 0) expect(texts[0]).toMatch(/^\*\w+\*/);
      for (const text of texts) expect(headings.has(text.split('\n').at(-1) ?? '')).toBe(false);
    });
  });

  it('gives nothing for nothing', () => {
    expect(packParts([])).toStrictEqual([]);
  });
});
