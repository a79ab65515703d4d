/**
 * Everything that comes from data (service names, descriptions, tags, API messages, user input)
 * passes through `esc` before it enters mrkdwn, so nothing can ping @channel or forge a link.
 */
import type { types } from '@slack/bolt';
import { servicePageUrl, type ConsoleBase } from './console.js';

export type Block = types.KnownBlock;
export type View = types.View;
export type InputElement = types.InputBlock['element'];

/**
 * Characters that change how the rest of a line reads without being seen: bidi overrides,
 * embeddings, isolates and marks (U+202E reverses what follows), zero-width spaces and joiners
 * (`events\u200B-prod` reads exactly like `events-prod`), invisible operators, the BOM, soft
 * hyphens and Unicode tag characters.
 */
const INVISIBLE =
  /[\u00AD\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|[\u{E0000}-\u{E007F}]/gu;

/** Invisible characters in data shown by their code point, e.g. `[U+202E]`: seen, and powerless. */
export function visible(text: string): string {
  return text.replace(
    INVISIBLE,
    (char) => `[U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}]`,
  );
}

/**
 * Slack's control characters become entities and invisible characters visible; a stray backtick
 * in data would pair with the bot's own code spans, so it becomes ʼ.
 */
function escControls(text: string): string {
  return visible(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/`/g, 'ʼ');
}

/** Last, on the finished text: a mass mention Slack could read stops being one. */
const defuseMentions = (text: string) => text.replace(/@(channel|here|everyone)\b/gi, '@\u200B$1');

const LOOK_ALIKE: Record<string, string> = { '*': '∗', '~': '∼', _: '＿' };
const MARKER = /[*~_]/;
const WORD = /[\p{L}\p{N}]/u;
const SPACE = /\s/;

/**
 * The `*`, `~` and `_` of one line that could pair into formatting, as look-alikes Slack does not
 * read (∗ ∼ ＿). A marker can open when a non-space follows it and close when a non-space
 * precedes it; it is replaced when it could pair with another of its kind on the line. So the
 * stars of `0 25 * * *` stay, as does the `_` of `events_prod` (between two letters or digits).
 */
function defuseMarkers(line: string): string {
  // Most lines of data hold no marker at all: they need no splitting into characters.
  if (!MARKER.test(line)) return line;
  const chars = [...line];
  const can = (at: number) => {
    const before = chars[at - 1];
    const after = chars[at + 1];
    if (chars[at] === '_' && before !== undefined && after !== undefined && WORD.test(before) && WORD.test(after))
      return { open: false, close: false };
    return {
      open: after !== undefined && !SPACE.test(after),
      close: before !== undefined && !SPACE.test(before),
    };
  };
  for (const mark of Object.keys(LOOK_ALIKE)) {
    if (!line.includes(mark)) continue;
    const at = chars.flatMap((char, i) => (char === mark ? [{ i, ...can(i) }] : []));
    const firstOpen = at.find((m) => m.open)?.i ?? Infinity;
    const lastClose = at.reduce((last, m) => (m.close ? m.i : last), -1);
    for (const m of at)
      if ((m.open && lastClose > m.i) || (m.close && firstOpen < m.i)) chars[m.i] = LOOK_ALIKE[mark] ?? mark;
  }
  return chars.join('');
}

/**
 * Data as text in mrkdwn, shown as data: besides the control characters, nothing in it may
 * format: markers that could pair into bold, italics or strike-through become look-alikes
 * (defuseMarkers), and the colons of an `:emoji:` code become ꞉.
 */
export function esc(text: string | undefined | null): string {
  if (text === undefined || text === null) return '';
  return defuseMentions(
    escControls(text)
      .replace(/:([a-z0-9_+'-]+):/gi, '꞉$1꞉')
      .split('\n')
      .map(defuseMarkers)
      .join('\n'),
  );
}

/** Data shown as code: nothing formats inside a code span, so its characters stay as they are. */
export function code(text: string | undefined | null): string {
  const clean = text === undefined || text === null ? '' : defuseMentions(escControls(text));
  return clean === '' ? '' : `\`${clean}\``;
}

/** Data in bold: every `*` inside would end the emphasis, so each becomes ∗. */
export function bold(text: string | undefined | null): string {
  const clean = esc(text).replace(/\*/g, '∗');
  return clean === '' ? '' : `*${clean}*`;
}

/**
 * A service as approvers must see it: its name in bold and, always, its id beside it, so that
 * two services whose names look alike (or a name that imitates another) cannot be mistaken. With
 * a console (CONSOLE_URL) the name links to the service's page there.
 */
export function serviceRef(name: string | undefined | null, id: string, consoleUrl?: ConsoleBase): string {
  const label = serviceName(name, id, consoleUrl);
  return label === '' ? code(id) : `${label} ${code(id)}`;
}

/**
 * A service's name in bold, linked to its console page when there is one: `*<url|name>*`. The
 * label is escaped data (no `<`, `>` or `&` left to end the link early); empty without a name.
 */
export function serviceName(name: string | undefined | null, id: string, consoleUrl?: ConsoleBase): string {
  const label = bold(name);
  const url = label === '' ? undefined : servicePageUrl(consoleUrl, id);
  return url === undefined ? label : `*<${url}|${label.slice(1, -1)}>*`;
}

/** The same in plain text (headers, fallback texts): the name cut so that the id always fits. */
export function serviceRefPlain(name: string | undefined | null, id: string, max: number = LIMITS.headerText): string {
  const room = Math.max(1, max - id.length - 3);
  return name ? `${truncate(visible(name), room)} (${id})` : id;
}

export const LIMITS = {
  messageBlocks: 50,
  modalBlocks: 100,
  /** A Home tab view (views.publish) holds at most this many blocks. */
  homeBlocks: 100,
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
  /** A plain_text_input's max_length may not exceed this, nor its initial_value this length. */
  textInput: 3000,
  /** A message's top-level `text` (the notification fallback): Slack refuses 40,000 characters and more. */
  messageText: 39_000,
} as const;

/**
 * Each distinct sentence once, in first-seen order: 990 duplicate tags are one problem, said once
 * (with how many times it occurred when more than once).
 */
export function distinctSentences(sentences: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const sentence of sentences) counts.set(sentence, (counts.get(sentence) ?? 0) + 1);
  return [...counts].map(([sentence, count]) => (count === 1 ? sentence : `${sentence} (${count} times)`));
}

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
  // No emoji codes: a header carries data (a service's name), and `:name:` in it is shown as typed.
  text: { type: 'plain_text', text: truncate(visible(text), LIMITS.headerText), emoji: false },
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
