/**
 * The API keys in a summary's messages: the headline's keys field (how many keys, and how many
 * never expire, went unused for 90 days, hold the Admin role), the thread's list of those keys,
 * and a key change among the drift lines. Everything from data is clipped, then escaped.
 */
import { UNUSED_DAYS, type ApiKey } from '../access/api-key.js';
import { bold, esc, truncate } from '../render/mrkdwn.js';
import { driftAuthorText } from './author-text.js';
import type { KeyDriftItem } from './key-drift.js';
import { keysOverview, type FlaggedKey, type KeysRead } from './keys.js';
import type { DetailPart } from './pack.js';

/** The headline's keys field; undefined when the summary did not read the keys. */
export function keysHeadline(read: KeysRead | undefined, now: number): string | undefined {
  if (read === undefined) return undefined;
  if ('unread' in read) return `_${unreadText(read.unread.status)}_`;
  const overview = keysOverview(read.keys, read.ownKeyId, now);
  const counts = [
    overview.neverExpires > 0 ? `${formatNumber(overview.neverExpires)} never expiring` : undefined,
    overview.unused > 0 ? `${formatNumber(overview.unused)} unused ${UNUSED_DAYS} days` : undefined,
    overview.admin > 0 ? `${formatNumber(overview.admin)} admin` : undefined,
  ].filter((part): part is string => part !== undefined);
  const total = plural(overview.total, 'key');
  return counts.length === 0 ? `${total}, none flagged` : `${total}: :warning: ${counts.join(' · ')}`;
}

function unreadText(status: number | undefined): string {
  if (status === 401 || status === 403)
    return `not read: the bot's API key may not list the organization's keys (status ${status}); give it a role that may, to see them here`;
  return `not read this time${status === undefined ? '' : ` (status ${status})`}; the next summary tries again`;
}

/** The thread's list of flagged keys (enabled ones only), or undefined when none is flagged. */
export function keysPart(read: KeysRead | undefined, now: number): DetailPart | undefined {
  if (read === undefined || 'unread' in read) return undefined;
  const { flagged } = keysOverview(read.keys, read.ownKeyId, now);
  if (flagged.length === 0) return undefined;
  return {
    title: `*API keys to look at* (${formatNumber(flagged.length)})`,
    continuedTitle: '*API keys to look at* (continued)',
    lines: flagged.map(flaggedLine),
  };
}

function flaggedLine({ key, flags }: FlaggedKey): string {
  const reasons = [
    flags.neverExpires ? 'never expires' : undefined,
    flags.unused
      ? key.usedAt === undefined
        ? `never used (created ${UNUSED_DAYS}+ days ago)`
        : `unused for ${UNUSED_DAYS}+ days`
      : undefined,
    flags.admin ? 'admin role' : undefined,
  ].filter((reason): reason is string => reason !== undefined);
  const own = flags.own ? ' _(the key this bot uses)_' : '';
  return `• ${keyLabel(key.name || key.id, key.keySuffix)}: ${reasons.join(' · ')}${own}`;
}

/** A key change among the drift lines: "API key *ci-loader* (…a1b2): Disabled — changed in the console by …". */
export function keyDriftLine(item: KeyDriftItem, generatedAt: number): string {
  return `• API key ${keyLabel(item.keyName, item.suffix)}: ${esc(truncate(item.text, 600))} — ${driftAuthorText(item, generatedAt)}`;
}

/** The key's name in bold, and its last four characters (never more of it). */
function keyLabel(name: string, suffix: ApiKey['keySuffix']): string {
  const last = suffix === undefined || suffix === '' ? '' : ` (…${esc(suffix.slice(-4))})`;
  return `${bold(truncate(name, 100))}${last}`;
}

const numberFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });
const formatNumber = (value: number) => numberFormat.format(value);
const plural = (count: number, noun: string) => `${formatNumber(count)} ${noun}${count === 1 ? '' : 's'}`;
