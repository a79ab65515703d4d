/**
 * The time zone `at TIME` is read in when the command names none (`tz:Area/City` wins): the
 * channel's (CHANNEL_TIMEZONES), else the requester's own Slack time zone, else UTC.
 */
import { isTimeZone } from '../core/schedule/cron.js';
import type { ZoneSource } from '../core/render/scheduled.js';
import type { Log, Messenger } from '../ports/index.js';

export type TimeZoneOf = (channelId: string, userId: string) => Promise<{ zone: string; source: ZoneSource }>;

export function timeZoneResolver(
  channelZones: Readonly<Record<string, string>>,
  messenger: Pick<Messenger, 'userTimeZone'>,
  logger: Pick<Log, 'warn'>,
): TimeZoneOf {
  return async (channelId, userId) => {
    const channelZone = channelZones[channelId];
    if (channelZone) return { zone: channelZone, source: 'channel' };
    // Without the users:read scope (or with Slack down) the person's zone is unknown: UTC, said so.
    const own = await messenger.userTimeZone(userId).catch((error: unknown) => {
      logger.warn(`could not read ${userId}'s time zone: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    });
    if (own && isTimeZone(own)) return { zone: own, source: 'requester' };
    return { zone: 'UTC', source: 'default' };
  };
}
