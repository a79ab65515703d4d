/**
 * `keys`: the organization's API keys with what deserves a look (never expiring, unused for 90
 * days, holding the Admin role) and the bot's own key marked.
 */
import { keyFlags, UNUSED_DAYS, type ApiKey } from '../access/api-key.js';
import { code, context, esc, header, packLines, section, slackDate, type Block } from './mrkdwn.js';

function dateOr(text: string | null | undefined, otherwise: string): string {
  const at = Date.parse(text ?? '');
  return Number.isNaN(at) ? otherwise : slackDate(at, '{date_short_pretty}');
}

function keyLine(key: ApiKey, now: number, ownKeyId: string): string {
  const flags = keyFlags(key, now, ownKeyId);
  const roles = key.assignedRoles.map((role) => esc(role.roleName)).join(', ') || 'no role';
  const notes = [
    flags.own ? ':robot_face: the bot’s own key' : undefined,
    flags.neverExpires ? ':warning: never expires' : undefined,
    flags.unused ? `:zzz: unused for ${UNUSED_DAYS}+ days` : undefined,
    flags.admin ? ':key: admin' : undefined,
  ].filter((note) => note !== undefined);
  const state = key.state === 'enabled' ? 'enabled' : `*${esc(key.state)}*`;
  return (
    `• *${esc(key.name) || code(key.id)}* ${code(`…${key.keySuffix ?? '????'}`)} ${state} · ${roles} · ` +
    `last used ${dateOr(key.usedAt, 'never')} · expires ${dateOr(key.expireAt, 'never')}` +
    (notes.length > 0 ? `\n   ${notes.join(' · ')}` : '')
  );
}

export function keysBlocks(keys: readonly ApiKey[], now: number, ownKeyId: string): Block[] {
  if (keys.length === 0) return [section('This organization has no API keys the bot can see.')];
  const flagged = keys.map((key) => keyFlags(key, now, ownKeyId));
  const count = (pick: (flags: ReturnType<typeof keyFlags>) => boolean) => flagged.filter(pick).length;
  const summary = [
    `${keys.length} ${keys.length === 1 ? 'key' : 'keys'}`,
    `${count((f) => f.neverExpires)} never expiring`,
    `${count((f) => f.unused)} unused for ${UNUSED_DAYS} days`,
    `${count((f) => f.admin)} admin`,
  ].join(' · ');
  return [
    header('API keys'),
    section(summary),
    ...packLines(
      keys.map((key) => keyLine(key, now, ownKeyId)),
      20,
      (n) => `…and ${n} more`,
    ),
    context(
      'Keys are managed in the ClickHouse Cloud console; the bot never shows more than their last four characters.',
    ),
  ];
}
