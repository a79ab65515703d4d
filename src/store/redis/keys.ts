/**
 * Key layout of the Redis stores. Every key carries a hash tag (`{changes}` or `{schedules}`), so
 * in Redis Cluster each store's keys hash to one slot and a Lua script may touch any of them
 * together.
 *
 *   <prefix>{changes}:req:<id>               HASH  one request (expires at expiresAt + retention)
 *   <prefix>{changes}:pending:<channelId>    ZSET  ids of a channel's requests, scored by expiresAt
 *   <prefix>{changes}:applying               SET   ids of requests in "applying"
 *   <prefix>{changes}:open                   ZSET  ids of all pending requests, scored by expiresAt (the metric)
 *   <prefix>{changes}:svc-lock:<serviceId>   STRING "<requestId>:<fence>" of the request applying
 *                                            to that service now; expires with its lease
 *   <prefix>{changes}:audit                  STREAM audit trail, entries kept AUDIT_RETENTION_DAYS
 *   <prefix>{changes}:audit:ch:<c>:svc:<s>   STREAM the same entries of one service's requests in that channel
 *   <prefix>{changes}:audit:ch:<c>:services  SET   the services of the channel with such a stream
 *   (an index stream has the same entry ids and trimming as the main one; each process renews its
 *   expiry, and names its service in the channel's set, at most daily, to the retention and a day:
 *   stream-expiry.ts. A channel's history merges its services' streams. No longer written, read
 *   until they expire: `audit:ch:<c>`, the channel's entries before the set existed; no longer
 *   read: `audit:applied`, drift attribution reads the main stream)
 *   <prefix>{changes}:reverts                ZSET  ids of applied temporary requests, scored by
 *                                            when the bot reverts them (app clock, ms)
 *   <prefix>{changes}:reverts:retrying       HASH  id -> "<due as planned>:<retry at>" for a revert that
 *                                            failed and was moved to a retry; good only while the
 *                                            id's score in `reverts` is still that retry time
 *   <prefix>{changes}:reminders              ZSET  the same ids, scored by when to remind
 *   <prefix>{changes}:scheduled              ZSET  ids of approved requests in "scheduled", scored by
 *                                            their applyAt (app clock, ms): the due-items tick reads it
 *   <prefix>{changes}:nudges                 ZSET  ids of posted waiting requests, scored by when their
 *                                            next reminder or escalation may be due (app clock, ms)
 *   <prefix>{changes}:copies:<id>            LIST  where a request was also sent (approvers' DMs),
 *                                            JSON {channelId, ts}; expires with the request
 *   <prefix>{changes}:click:<key>            STRING a click claimed once for a while (SET NX PX)
 *   <prefix>{changes}:homes                  ZSET  people who opened the Home tab, scored by when (app clock)
 *   (the audit stream's consumer groups, one per export sink, are the sinks' cursors)
 *   <prefix>{changes}:audit-sink:<group>     STRING the replica delivering to that sink (lease, PX)
 *
 *   <prefix>{schedules}:all                  HASH  id -> schedule JSON
 *   <prefix>{schedules}:lastrun              HASH  id -> last fire time claimed (ms)
 *   <prefix>{schedules}:running              HASH  id -> until when a replica is posting its run (ms)
 *   <prefix>{schedules}:snap:<key>           STRING drift baseline JSON (expires after 90 days)
 *   <prefix>{schedules}:adhoc:<channelId>    ZSET  a channel's ad-hoc baseline keys, scored by last write
 *
 *   <prefix>{costs}:days                     HASH  YYYY-MM-DD -> that day's usageCost rows as read,
 *                                            whether they are all locked, and when they were read;
 *                                            days 200 before the newest written are dropped
 *   <prefix>{costs}:claim:<key>              STRING a cost alert claimed once (SET NX PX)
 */
export const DEFAULT_KEY_PREFIX = 'chbot:';

export interface ChangeKeys {
  request(id: string): string;
  pending(channelId: string): string;
  applying: string;
  open: string;
  audit: string;
  /** A channel's entries as written before its services' streams were its index (read until it expires). */
  auditOfChannel(channelId: string): string;
  auditOfService(channelId: string, serviceId: string): string;
  auditServicesOfChannel(channelId: string): string;
  serviceLock(serviceId: string): string;
  reverts: string;
  /** Reverts moved to a retry: when each was due as planned (see the table above). */
  revertsRetrying: string;
  reminders: string;
  /** Approved scheduled requests by their time (applyAt). */
  scheduled: string;
  nudges: string;
  /** Where a request was also sent (recordCopy). */
  copies(id: string): string;
  /** A click claimed once for a while (claimOnce). */
  click(key: string): string;
  /** People who opened the Home tab, by when. */
  homes: string;
  /** Which replica delivers to an export sink (its consumer group's name). */
  auditSinkLease(group: string): string;
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
    auditOfChannel: (channelId) => `${base}audit:ch:${channelId}`,
    auditOfService: (channelId, serviceId) => `${base}audit:ch:${channelId}:svc:${serviceId}`,
    auditServicesOfChannel: (channelId) => `${base}audit:ch:${channelId}:services`,
    serviceLock: (serviceId) => `${base}svc-lock:${serviceId}`,
    reverts: `${base}reverts`,
    revertsRetrying: `${base}reverts:retrying`,
    reminders: `${base}reminders`,
    scheduled: `${base}scheduled`,
    nudges: `${base}nudges`,
    copies: (id) => `${base}copies:${id}`,
    click: (key) => `${base}click:${key}`,
    homes: `${base}homes`,
    auditSinkLease: (group) => `${base}audit-sink:${group}`,
  };
}

/** Snapshots older than this are dropped: drift against a months-old baseline is noise. */
export const SNAPSHOT_TTL_SECONDS = 90 * 24 * 3600;

export interface ScheduleKeys {
  all: string;
  lastRun: string;
  running: string;
  snapshot(key: string): string;
  adHoc(channelId: string): string;
}

export function scheduleKeys(prefix: string = DEFAULT_KEY_PREFIX): ScheduleKeys {
  const base = `${prefix}{schedules}:`;
  return {
    all: `${base}all`,
    lastRun: `${base}lastrun`,
    running: `${base}running`,
    snapshot: (key) => `${base}snap:${key}`,
    adHoc: (channelId) => `${base}adhoc:${channelId}`,
  };
}

export interface CostKeys {
  days: string;
  claim(key: string): string;
}

export function costKeys(prefix: string = DEFAULT_KEY_PREFIX): CostKeys {
  if (/[{}]/.test(prefix)) throw new Error(`Redis key prefix must not contain braces: ${prefix}`);
  const base = `${prefix}{costs}:`;
  return { days: `${base}days`, claim: (key) => `${base}claim:${key}` };
}
