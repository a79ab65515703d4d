/**
 * Key layout of the Redis store. Every key carries the hash tag `{changes}`, so in Redis Cluster
 * they all hash to one slot and a Lua script may touch any of them together.
 *
 *   <prefix>{changes}:req:<id>               HASH  one request (expires at expiresAt + retention)
 *   <prefix>{changes}:pending:<channelId>    ZSET  ids of a channel's requests, scored by expiresAt
 *   <prefix>{changes}:applying               SET   ids of requests in "applying"
 *   <prefix>{changes}:audit                  STREAM audit trail, trimmed to ~10000 entries
 *   <prefix>{changes}:svc-lock:<serviceId>   STRING "<requestId>:<fence>" of the request applying
 *                                            to that service now; expires with its lease
 */
export const DEFAULT_KEY_PREFIX = 'chbot:';

export interface ChangeKeys {
  request(id: string): string;
  pending(channelId: string): string;
  applying: string;
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
    audit: `${base}audit`,
    serviceLock: (serviceId) => `${base}svc-lock:${serviceId}`,
  };
}
