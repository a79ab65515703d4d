/**
 * Everything that comes from data (service names, descriptions, tags, API messages, user input)
 * passes through `esc` before it enters mrkdwn, so nothing can ping @channel or forge a link.
 */
import type { types } from '@slack/bolt';

export type Block = types.KnownBlock;
export type View = types.View;
export type InputElement = types.InputBlock['element'];

/** Slack's control characters become entities, and bare mass mentions lose their power. */
export function esc(text: string | undefined | null): string {
  if (text === undefined || text === null) return '';
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/`/g, 'ʼ') // a stray backtick in data would pair with the bot's own code spans
    .replace(/@(channel|here|everyone)\b/gi, '@\u200B$1');
}

/** Data shown as code (esc already keeps a backtick in the data from closing the span early). */
export function code(text: string | undefined | null): string {
  const clean = esc(text);
  return clean === '' ? '' : `\`${clean}\``;
}

/** Data in bold: formatting characters inside would break the emphasis, so they are dropped. */
export function bold(text: string | undefined | null): string {
  const clean = esc(text).replace(/\*/g, '∗');
  return clean === '' ? '' : `*${clean}*`;
}

export const LIMITS = {
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
  /** A message's top-level `text` (the notification fallback): Slack refuses 40,000 characters and more. */
  messageText: 39_000,
} as const;

export function truncate(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  // Never leave half an entity (&am…) or half a control sequence (<!date^… or <@U…) behind.
  const cut = chars
    .slice(0, max - 1)
    .join('')
    .replace(/&[a-z]*$/i, '')
    .replace(/<[^<>]*$/, '');
  return `${cut}…`;
}

/** The top-level `text` of a message, cut (cleanly) below Slack's 40,000 characters. */
export const messageText = (text: string): string => truncate(text, LIMITS.messageText);

export const section = (text: string): Block => ({
  type: 'section',
  text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) },
});
export const context = (text: string): Block => ({
  type: 'context',
  elements: [{ type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) }],
});
export const header = (text: string): Block => ({
  type: 'header',
  text: { type: 'plain_text', text: truncate(text, LIMITS.headerText), emoji: true },
});
export const divider = (): Block => ({ type: 'divider' });

/**
 * Packs lines into as few section blocks as fit 3000 characters each, at most `maxBlocks`;
 * what does not fit is counted in a last line instead of being silently cut.
 */
export function packLines(lines: string[], maxBlocks: number, moreLabel: (hidden: number) => string): Block[] {
  const texts: string[] = [];
  let current = '';
  let shown = 0;
  const budget = LIMITS.sectionText - 100; // room for the "and N more" line
  for (const line of lines) {
    const candidate = current === '' ? line : `${current}\n${line}`;
    if (candidate.length <= budget) {
      current = candidate;
      shown += 1;
      continue;
    }
    if (texts.length + 1 >= maxBlocks) break;
    if (current !== '') texts.push(current);
    current = truncate(line, budget);
    shown += 1;
  }
  const hidden = lines.length - shown;
  if (hidden > 0) current = `${current}\n${moreLabel(hidden)}`;
  if (current !== '') texts.push(current);
  return texts.map(section);
}

/** Slack renders <!date^...> in each reader's own time zone, with a plain fallback. */
export function slackDate(epochMs: number, format = '{date_short_pretty} at {time}'): string {
  const seconds = Math.floor(epochMs / 1000);
  return `<!date^${seconds}^${format}|${new Date(epochMs).toISOString()}>`;
}
