/**
 * Splits the summary's details into as many thread messages as needed, line by line, so none is
 * dropped: Slack refuses a message over 50 blocks or a section over 3,000 characters, and shows
 * only "see more" stubs of very long messages, so each message also stays near 12,000 characters.
 */
import { LIMITS, section, truncate, type Block } from '../render/mrkdwn.js';

export interface DetailPart {
  /** mrkdwn heading of the part, e.g. "*Services* (1,000)". */
  title: string;
  /** The heading repeated at the top of a later message the part continues into. */
  continuedTitle: string;
  /** mrkdwn lines, already escaped; each is short (well under a section's limit). */
  lines: readonly string[];
}

/** Room is left in each message for its "part k of n" context and its notification text. */
export const DETAIL_BUDGET = {
  sectionChars: LIMITS.sectionText - 100,
  messageChars: 11_000,
  messageBlocks: LIMITS.messageBlocks - 5,
} as const;

/** The blocks of each details message, in order; empty when there are no parts. */
export function packParts(parts: readonly DetailPart[]): Block[][] {
  const messages: Block[][] = [];
  let blocks: Block[] = [];
  let blockChars = 0;
  let text = '';

  const closeSection = () => {
    if (text === '') return;
    blocks.push(section(text));
    blockChars += text.length;
    text = '';
  };
  const closeMessage = () => {
    closeSection();
    if (blocks.length > 0) messages.push(blocks);
    blocks = [];
    blockChars = 0;
  };
  const tryAppend = (line: string): boolean => {
    const candidate = text === '' ? line : `${text}\n${line}`;
    if (candidate.length > DETAIL_BUDGET.sectionChars || blockChars + candidate.length > DETAIL_BUDGET.messageChars)
      return false;
    text = candidate;
    return true;
  };
  /** Appends to the open section, else a new section, else a new message under `heading`. */
  const add = (line: string, heading: string | undefined) => {
    if (tryAppend(line)) return;
    closeSection();
    if (blocks.length < DETAIL_BUDGET.messageBlocks && tryAppend(line)) return;
    closeMessage();
    text = truncate(heading === undefined ? line : `${heading}\n${line}`, DETAIL_BUDGET.sectionChars);
  };

  for (const part of parts) {
    // A part starts its own section, and its title travels with its first line so it is never
    // left alone at the bottom of a message.
    closeSection();
    const [first, ...rest] = part.lines;
    add(first === undefined ? part.title : `${part.title}\n${first}`, undefined);
    for (const line of rest) add(line, part.continuedTitle);
  }
  closeMessage();
  return messages;
}
