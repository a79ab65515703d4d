/**
 * Turns the text Slack sends with a slash command into words. Slack escapes &, < and > and wraps
 * links and mentions in <...>; people type straight or "smart" quotes depending on their client.
 * Nothing here knows about commands: see parse.ts for that.
 */

export interface Token {
  text: string;
  /** True when the word was written in quotes (the schedule's cron expression must be). */
  quoted: boolean;
}

export interface Tokenized {
  tokens: Token[];
  /** Set when a quote is never closed: the text from that quote on, which produced no token. */
  unterminated?: string;
}

/**
 * Quote characters by family. Any member opens and any member of the same family closes, because
 * clients mix them: macOS turns "a" into “a”, iOS may close “ with ", German keyboards write „a“.
 * The two families never close each other, so "Bob's laptop" keeps its apostrophe.
 */
const DOUBLE_QUOTES = new Set(['"', '“', '”', '„']);
const SINGLE_QUOTES = new Set(["'", '‘', '’', '‚']);

const WHITESPACE = /\s/u;

/**
 * Undoes Slack's escaping in one pass, so an escaped "&amp;lt;" becomes the "&lt;" the person
 * typed rather than "<". Real angle brackets only come from Slack (typed ones arrive escaped), so
 * every <...> is a link or mention: links become their label (or URL), mentions are kept.
 */
export function normalizeSlackText(text: string): string {
  return text.replace(/<([^<>]*)>|&(amp|lt|gt);/g, (match: string, body?: string, entity?: string) => {
    if (entity !== undefined) return ENTITIES[entity] ?? match;
    return unwrapAngleBrackets(match, body ?? '');
  });
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>' };

function unwrapAngleBrackets(match: string, body: string): string {
  // <@U123>, <#C123|general>, <!channel>: mentions stay as typed so they never pass for a name.
  if (body === '' || /^[@#!]/.test(body)) return match;
  const bar = body.indexOf('|');
  const shown = bar === -1 ? body : body.slice(bar + 1);
  return shown.replace(/&(amp|lt|gt);/g, (entity: string, name: string) => ENTITIES[name] ?? entity);
}

/**
 * Splits on any whitespace (including the non-breaking spaces some clients insert) and keeps
 * quoted text whole. A quote opens only at the start of a word and closes only before whitespace
 * or the end, so apostrophes inside words ("Bob's", "Bob’s") are ordinary characters.
 */
export function tokenize(text: string): Tokenized {
  const tokens: Token[] = [];
  let index = 0;
  while (index < text.length) {
    index = skipWhitespace(text, index);
    if (index >= text.length) break;
    const family = quoteFamily(text.charAt(index));
    if (family === undefined) {
      const end = wordEnd(text, index);
      tokens.push({ text: text.slice(index, end), quoted: false });
      index = end;
      continue;
    }
    const close = closingQuote(text, index + 1, family);
    if (close === -1) return { tokens, unterminated: text.slice(index) };
    tokens.push({ text: text.slice(index + 1, close), quoted: true });
    index = close + 1;
  }
  return { tokens };
}

function isWhitespace(char: string): boolean {
  return WHITESPACE.test(char);
}

function skipWhitespace(text: string, from: number): number {
  let index = from;
  while (index < text.length && isWhitespace(text.charAt(index))) index++;
  return index;
}

function wordEnd(text: string, from: number): number {
  let index = from;
  while (index < text.length && !isWhitespace(text.charAt(index))) index++;
  return index;
}

function quoteFamily(char: string): ReadonlySet<string> | undefined {
  if (DOUBLE_QUOTES.has(char)) return DOUBLE_QUOTES;
  if (SINGLE_QUOTES.has(char)) return SINGLE_QUOTES;
  return undefined;
}

/** Index of the first quote of the family that is followed by whitespace or the end, or -1. */
function closingQuote(text: string, from: number, family: ReadonlySet<string>): number {
  for (let index = from; index < text.length; index++) {
    const atWordEnd = index + 1 === text.length || isWhitespace(text.charAt(index + 1));
    if (atWordEnd && family.has(text.charAt(index))) return index;
  }
  return -1;
}
