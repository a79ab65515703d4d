/**
 * Key layout of the Redis stores. Every key carries a hash tag (`{changes}` or `{schedules}`), so
 * in Redis Cluster each store's keys hash to one slot and a Lua script may touch any of them
 * together.
 *
 *   <prefix>{changes}:req:<id>               HASH  one request (expires at expiresAt + retention)
 *   <prefix>{changes}:pending:<channelId>    ZSET  ids of a channel's requests, scored by expiresAt
 *   <prefix>{changes}:applying               SET   ids of requests in "applying"
 *   <prefix>{changes}:open                   ZSET  ids of all pending requests, scored by expiresAt (the metric)
 *   <prefix>{changes}:audit                  STREAM audit trail, trimmed to ~10000 entries
 *   <prefix>{changes}:svc-lock:<serviceId>   STRING "<requestId>:<fence>" of the request applying
 *                                            to that service now; expires with its lease
 *
 *   <prefix>{schedules}:all                  HASH  id -> schedule JSON
 *   <prefix>{schedules}:lastrun              HASH  id -> last fire time claimed (ms)
 *   <prefix>{schedules}:snap:<key>           STRING drift baseline JSON (expires after 90 days)
 */
export const DEFAULT_KEY_PREFIX = 'chbot:';

export interface ChangeKeys {
  request(id: string): string;
  pending(channelId: string): string;
  applying: string;
  open: string;
  audit: string;
  serviceLock(serviceId: string): string;
}

export function changeKeys(prefix: string = DEFAULT_KEY_PREFIX): ChangeKeys {
  // A brace in the prefix would move or empty the hash tag and scatter the keys over slots.
  if (/[{}]/.test(prefix)) throw new Error(`Redis key prefix must not contain braces: ${prefix}`);
  const base = `${prefix}{changes}:`;
  return {
    request: (id) => `${base}req:${id}`,
    pending: (channelId) => `${base}pending:${channelId}`,
    applying: `${base}applying`,
    open: `${base}open`,
    audit: `${base}audit`,
    serviceLock: (serviceId) => `${base}svc-lock:${serviceId}`,
  };
}

/** Snapshots older than this are dropped: drift against a months-old baseline is noise. */
export const SNAPSHOT_TTL_SECONDS = 90 * 24 * 3600;

export interface ScheduleKeys {
  all: string;
  lastRun: string;
  snapshot(key: string): string;
}

export function scheduleKeys(prefix: string = DEFAULT_KEY_PREFIX): ScheduleKeys {
  const base = `${prefix}{schedules}:`;
  return { all: `${base}all`, lastRun: `${base}lastrun`, snapshot: (key) => `${base}snap:${key}` };
}
