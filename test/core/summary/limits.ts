/**
 * Slack's limits for one summary message: those of its blocks (50 blocks, 3,000-character
 * sections, 10 fields, 150-character headers...) plus a total of 12,000 characters, past which
 * Slack cuts long messages short.
 */
import { expect } from 'vitest';
import type { SummaryMessage } from '../../../src/core/summary/index.js';
import { allTexts, blockKitViolations } from '../render/block-kit.js';

export const MESSAGE_TEXT_MAX = 12_000;

const chars = (text: string) => [...text].length;

export function messageViolations(message: SummaryMessage, where: string): string[] {
  const problems = blockKitViolations(message.blocks, { max: 50 }).map((p) => `${where}: ${p}`);
  const total = chars(allTexts(message.blocks)) + chars(message.text);
  if (total > MESSAGE_TEXT_MAX) problems.push(`${where}: ${total} characters of text > ${MESSAGE_TEXT_MAX}`);
  if (message.text.trim() === '') problems.push(`${where}: no notification text`);
  return problems;
}

export function assertMessagesWithinLimits(messages: readonly SummaryMessage[]): void {
  expect(messages.flatMap((message, i) => messageViolations(message, `message ${i}`))).toStrictEqual([]);
}
