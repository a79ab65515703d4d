/**
 * Who made a change of a summary's drift, in words: the bot (through which change request), a
 * console user, another API key, support or the system, as the activity log names them, or the
 * bot's own guess when it was not read. Names from the log are clipped, kept on one line, escaped.
 */
import { code, esc, slackDate, truncate } from '../render/mrkdwn.js';
import type { ChangeAuthor, DriftItem } from './drift.js';

/** Clips raw data (before esc), so no later truncation can cut an entity such as &amp; in half. */
const clip = (text: string, max: number) => truncate(text, max);

/** Who made a change, in words: exact when the activity log was read, else the bot's own guess. */
export function driftAuthorText(item: Pick<DriftItem, 'via' | 'authors'>, generatedAt: number): string {
  const authors = item.authors;
  if (item.via) {
    const when = authors?.[0] ? ` ${whenText(authors[0].at, generatedAt)}` : '';
    return `:robot_face: via this bot (${code(clip(item.via.changeId, 80))})${when}`;
  }
  if (authors === undefined) return '_elsewhere_ (console, Terraform or another tool)';
  const [only, ...others] = authors;
  if (only === undefined) return '_elsewhere_ (the activity log names nobody for it)';
  if (others.length === 0) return authorSentence(only, generatedAt);
  return `_elsewhere_, by one of: ${authors.map((author) => authorPhrase(author, generatedAt)).join('; ')}`;
}

function authorSentence(author: ChangeAuthor, generatedAt: number): string {
  const when = whenText(author.at, generatedAt);
  switch (author.actor) {
    case 'bot':
      return `:robot_face: with this bot's API key ${when}, but by none of its change requests`;
    case 'user':
      return `:bust_in_silhouette: changed in the console by ${userName(author)} ${when}`;
    case 'api-key':
      return `:key: changed through another API key (${keyName(author)}) ${when}`;
    case 'support':
      return `:technologist: changed by ClickHouse support ${when}`;
    case 'system':
      return `:gear: changed by ClickHouse Cloud itself ${when}`;
    case 'unknown':
      return `_elsewhere_, by ${author.name ? code(clip(oneLine(author.name), 80)) : 'someone the activity log does not name'} ${when}`;
  }
}

/** One of several possible authors, without the emoji. */
function authorPhrase(author: ChangeAuthor, generatedAt: number): string {
  const when = whenText(author.at, generatedAt);
  switch (author.actor) {
    case 'bot':
      return `this bot's API key ${when}`;
    case 'user':
      return `${userName(author)} in the console ${when}`;
    case 'api-key':
      return `API key ${keyName(author)} ${when}`;
    case 'support':
      return `ClickHouse support ${when}`;
    case 'system':
      return `ClickHouse Cloud itself ${when}`;
    case 'unknown':
      return `${author.name ? code(clip(oneLine(author.name), 80)) : 'someone unnamed'} ${when}`;
  }
}

const userName = (author: ChangeAuthor) =>
  author.name ? esc(clip(oneLine(author.name), 100)) : 'a user the log does not name';
const keyName = (author: ChangeAuthor) => (author.name ? code(clip(oneLine(author.name), 80)) : 'unnamed');
/** A name from the activity log on one line: a line break in it would forge a drift line of its own. */
const oneLine = (name: string) => name.replace(/\s+/g, ' ');

/** Within half a day of the summary the time is enough; older changes carry their date. */
const RECENT_MS = 12 * 60 * 60 * 1000;

function whenText(at: number, generatedAt: number): string {
  return generatedAt - at < RECENT_MS
    ? `at ${slackDate(at, '{time}')}`
    : `on ${slackDate(at, '{date_short} at {time}')}`;
}
