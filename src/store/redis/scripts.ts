import type { RedisConnection } from './connection.js';

/**
 * Lua scripts of the Redis stores. Each one is a single atomic step: nothing else runs on the
 * server between its check and its writes. They never decode or re-encode the request JSON
 * (cjson would turn empty arrays into objects); they only read the scalar fields stored beside it.
 * Every key a script touches is passed in KEYS, as Redis Cluster requires.
 */

type ScriptArg = string | number;
export type ScriptCommand = (...args: ScriptArg[]) => Promise<unknown>;

function isScriptCommand(value: unknown): value is ScriptCommand {
  return typeof value === 'function';
}

/** A command registered with defineCommand (EVALSHA, falling back to EVAL when not cached). */
export function defineScript(redis: RedisConnection, name: string, numberOfKeys: number, lua: string): ScriptCommand {
  redis.defineCommand(name, { numberOfKeys, lua });
  const command: unknown = Reflect.get(redis, name);
  if (!isScriptCommand(command)) throw new Error(`ioredis did not define ${name}`);
  return (...args) => command.apply(redis, args);
}

/** Registered names (ioredis defineCommand). Prefixed so they cannot clash with Redis commands. */
export const CREATE_COMMAND = 'chbotCreateChange';
export const TRANSITION_COMMAND = 'chbotTransitionChange';
export const SET_MESSAGE_TS_COMMAND = 'chbotSetChangeMessageTs';
export const RENEW_LEASE_COMMAND = 'chbotRenewLease';
export const LOCK_SERVICE_COMMAND = 'chbotLockService';
export const CONFIRM_SENDING_COMMAND = 'chbotConfirmSending';
export const RECORD_CONFIRMED_COMMAND = 'chbotRecordConfirmed';
export const TAKE_OVER_COMMAND = 'chbotTakeOver';
export const POSTPONE_REVERT_COMMAND = 'chbotPostponeRevert';
export const DROP_STALE_RETRY_NOTES_COMMAND = 'chbotDropStaleRetryNotes';

/**
 * Shared by the change scripts: the request as a table, leases and audit entries. Lease times are
 * on the Redis server's clock (TIME), so replicas whose clocks disagree still agree on when a
 * lease has expired. A step reads its request once (HGETALL), changes the table and writes what
 * changed in one HSET: the server's work per step is what Redis counts per approval (issue 29).
 */
const LEASE_PRELUDE = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function int(n)
  return string.format('%d', n)
end

-- The request hash as a table (nil when it is gone), and the fields a step changes in it.
local function read_request(key)
  local flat = redis.call('HGETALL', key)
  if #flat == 0 then return nil end
  local fields = {}
  for i = 1, #flat, 2 do fields[flat[i]] = flat[i + 1] end
  return {key = key, fields = fields, changed = {}}
end

local function put(r, ...)
  local pairs_ = {...}
  for i = 1, #pairs_, 2 do
    r.fields[pairs_[i]] = tostring(pairs_[i + 1])
    r.changed[pairs_[i]] = true
  end
end

-- One HSET with every changed field (nothing when none changed).
local function save(r)
  local args = {}
  for field in pairs(r.changed) do
    args[#args + 1] = field
    args[#args + 1] = r.fields[field]
  end
  if #args > 0 then redis.call('HSET', r.key, unpack(args)) end
  r.changed = {}
end

-- The request as it is now, as HGETALL would answer, without asking the server again.
local function flat_fields(r)
  local flat = {}
  for field, value in pairs(r.fields) do
    flat[#flat + 1] = field
    flat[#flat + 1] = value
  end
  return flat
end

-- The claimant owns the request from now on: fence + 1, a fresh lease, nothing sent yet, and the
-- service's lock when it is free (SET NX: the lock and the lease then expire together). Answers 1
-- when the lock was taken here, else 0 (the flow then asks for it as before). The caller saves.
local function grant_lease(r, owner, ttl, service_lock, id)
  local fence = (tonumber(r.fields.fence or '0') or 0) + 1
  put(r, 'fence', int(fence), 'leaseOwner', owner, 'leaseUntil', int(now_ms() + tonumber(ttl)))
  if r.fields.sending then
    redis.call('HDEL', r.key, 'sending')
    r.fields.sending = nil
  end
  if not service_lock then return 0 end
  if redis.call('SET', service_lock, id .. ':' .. int(fence), 'NX', 'PX', ttl) then return 1 end
  return 0
end

-- Appends one audit entry to the main stream and, with the same id, to the index stream of its
-- channel and service; both are trimmed by age (MINID). A stream's expiry is renewed only where
-- \`renew\` has a 1 at its place: each replica renews a stream's expiry (retention and a day) at
-- most once a day, not per entry. Renewing the index stream also (re)names its service in the
-- channel's set of services (the channel's history reads their streams), which expires alike.
-- A stream not due for renewal is written with NOMKSTREAM: should it be gone since it was renewed
-- (lost in a failover, deleted), it is made again with its expiry (and its service named), never
-- as a stream without one, which would be kept forever once its service goes quiet.
local function append_entry(streams, renew, minid, stream_ttl_ms, fields, services, service_id)
  local entry_id = '*'
  for i = 1, #streams do
    local due = string.sub(renew, i, i) == '1'
    local added = false
    if not due then
      added = redis.call('XADD', streams[i], 'NOMKSTREAM', 'MINID', '~', minid, entry_id, unpack(fields))
    end
    if added then
      entry_id = added
    else
      entry_id = redis.call('XADD', streams[i], 'MINID', '~', minid, entry_id, unpack(fields))
      redis.call('PEXPIRE', streams[i], stream_ttl_ms)
      if i == 2 then
        redis.call('SADD', services, service_id)
        redis.call('PEXPIRE', services, stream_ttl_ms)
      end
    end
  end
end

-- One audit entry about the request, with its current fence when it has one, in the main stream
-- and the index of its channel and service; an applied entry also carries the exact PATCH body
-- (drift attribution reads the applied entries of the main stream).
local function append_request_audit(streams, services, renew, minid, stream_ttl_ms, r, id, now, actor, action, summary, api_request_id, message)
  local about = r.fields
  local fields = {
    'at', now, 'action', action, 'changeId', id, 'actorId', actor,
    'channelId', about.channelId, 'serviceId', about.serviceId, 'serviceName', about.serviceName, 'summary', summary,
  }
  if about.fence then
    fields[#fields + 1] = 'fence'
    fields[#fields + 1] = about.fence
  end
  -- Every entry of a request of a named organization (ORGANIZATIONS_FILE) says which.
  if about.organization then
    fields[#fields + 1] = 'organization'
    fields[#fields + 1] = about.organization
  end
  if api_request_id ~= '' then
    fields[#fields + 1] = 'apiRequestId'
    fields[#fields + 1] = api_request_id
  end
  if message ~= '' then
    fields[#fields + 1] = 'message'
    fields[#fields + 1] = message
  end
  if action == 'applied' and about.update then
    fields[#fields + 1] = 'update'
    fields[#fields + 1] = about.update
  end
  append_entry(streams, renew, minid, stream_ttl_ms, fields, services, about.serviceId)
end

-- The lease fields of a request, and whether the given owner and fence hold it unexpired.
local function lease_held(request, owner, fence, now)
  local f = redis.call('HMGET', request, 'status', 'leaseOwner', 'fence', 'leaseUntil')
  return f[1] == 'applying' and f[2] == owner and f[3] == fence and (tonumber(f[4] or '0') or 0) > now
end
`;

/**
 * KEYS: 1 request hash, 2 channel's pending index, 3 audit stream, 4 index of all pending requests,
 *       5 audit stream of the service in the channel, 6 the channel's set of services with one
 * ARGV: 1 id, 2 expiresAt, 3 retention deadline (unix ms), 4 ms until that deadline,
 *       5 prune pending members scored at or below this, 6 audit MINID (unix ms),
 *       7 audit streams' expiry (ms), 8 which of the two streams to renew it on ("10"),
 *       9 n = count of hash arguments, 10..9+n hash field/value pairs, then audit field/value pairs,
 *       the last of them the service's id
 * Returns 1 when created, 0 when the id already exists.
 */
export const CREATE_LUA = `${LEASE_PRELUDE}
local request, pending, audit, open = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
if redis.call('EXISTS', request) == 1 then return 0 end

local hashEnd = 9 + tonumber(ARGV[9])
redis.call('HSET', request, unpack(ARGV, 10, hashEnd))
redis.call('PEXPIREAT', request, ARGV[3])

-- Members whose request hash has already expired can never be listed again.
redis.call('ZREMRANGEBYSCORE', pending, '-inf', ARGV[5])
redis.call('ZREMRANGEBYSCORE', open, '-inf', ARGV[5])
local ttl = tonumber(ARGV[4])
if ttl > 0 then
  redis.call('ZADD', pending, ARGV[2], ARGV[1])
  redis.call('ZADD', open, ARGV[2], ARGV[1])
  -- The index lives as long as its longest-lived request (PTTL is -1 on a fresh key).
  if redis.call('PTTL', pending) < ttl then redis.call('PEXPIRE', pending, ttl) end
end

append_entry({audit, KEYS[5]}, ARGV[8], ARGV[6], ARGV[7], {unpack(ARGV, hashEnd + 1, #ARGV - 1)}, KEYS[6], ARGV[#ARGV])
return 1
`;

/**
 * KEYS: 1 request hash, 2 applying set, 3 audit stream, 4 the service's lock,
 *       5 index of all pending requests, 6 audit stream of the service in the channel,
 *       7 reverts due (zset), 8 reminders due (zset), 9 scheduled requests (zset, by applyAt),
 *       10 the channel's set of services with an audit stream
 * ARGV: 1 id, 2 now, 3 to, 4 actorId, 5 outcome JSON or '', 6 audit MINID (unix ms),
 *       7 audit action, 8 summary, 9 apiRequestId or '', 10 message or '',
 *       11 message of the automatic expiry entry,
 *       12 owner claiming a lease (to = applying) or '', 13 its lease in ms,
 *       14 owner holding the lease (leaving applying) or '', 15 its fence,
 *       16 audit retention (ms), 17 audit streams' expiry (ms), 18 which streams to renew it on,
 *       19.. statuses the transition starts from
 * Returns {'missing'} or {reason, the request's fields afterwards, 1 when a claim took the service's
 * lock too}, reason one of 'ok', 'conflict', 'expired', 'lost' (the holder's fence is outdated).
 */
export const TRANSITION_LUA =
  LEASE_PRELUDE +
  `
local request, applying, audit, service_lock, open = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local reverts, reminders, scheduled = KEYS[7], KEYS[8], KEYS[9]
local id, now, to, actor, outcome, minid = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local claim_owner, claim_ttl, holder_owner, holder_fence = ARGV[12], ARGV[13], ARGV[14], ARGV[15]

local r = read_request(request)
if not r then return {'missing'} end
local f = r.fields
local locked = 0

local function append_audit(action, summary, api_request_id, message)
  append_request_audit({audit, KEYS[6]}, KEYS[10], ARGV[18], minid, ARGV[17], r, id, now, actor, action, summary, api_request_id, message)
end

local function reply(reason)
  return {reason, flat_fields(r), locked}
end

local status = f.status
if status == 'pending' and to ~= 'expired' and tonumber(now) >= tonumber(f.expiresAt) then
  put(r, 'status', 'expired')
  save(r)
  redis.call('ZREM', open, id)
  append_audit('expired', ARGV[8], '', ARGV[11])
  return reply('expired')
end

local allowed = false
for i = 19, #ARGV do
  if ARGV[i] == status then allowed = true break end
end
if not allowed then return reply('conflict') end

-- Only the lease's current holder records an outcome: expiry alone does not take it away, a
-- takeover (which moves the fence on) does.
if status == 'applying' and holder_owner ~= '' then
  if f.leaseOwner ~= holder_owner or f.fence ~= holder_fence then return reply('lost') end
end

put(r, 'status', to)
if status == 'pending' and to ~= 'pending' then
  put(r, 'decidedBy', actor, 'decidedAt', now)
  redis.call('ZREM', open, id)
end
-- A scheduled request waits in the scheduled index until it leaves "scheduled"; ended before its
-- time (cancelled, expired) it records who ended it, started (applying) it keeps its approver.
if status == 'scheduled' and to ~= 'scheduled' then
  redis.call('ZREM', scheduled, id)
  if to ~= 'applying' then put(r, 'decidedBy', actor, 'decidedAt', now) end
end
if to == 'scheduled' and status ~= 'scheduled' then
  redis.call('ZADD', scheduled, f.applyAt or f.expiresAt, id)
end
if outcome ~= '' then put(r, 'outcome', outcome) end
-- Leaving "applying": the holder's service lock is released (only the holder's: a move that names
-- none leaves it to the lease, whose update may still be on its way). The lease fields stay (read
-- only while a request is applying, codec.ts): deleting them would cost the server a command per request.
if status == 'applying' and to ~= 'applying' then
  redis.call('SREM', applying, id)
  if holder_owner ~= '' and f.fence and redis.call('GET', service_lock) == id .. ':' .. f.fence then
    redis.call('DEL', service_lock)
  end
end
if to == 'applying' and status ~= 'applying' then
  redis.call('SADD', applying, id)
  if claim_owner ~= '' then locked = grant_lease(r, claim_owner, claim_ttl, service_lock, id) end
end
-- A time-boxed request schedules its own revert when applied, in this same step, so an applied
-- grant can never lack its revert; an approved extension moves the original's revert, if any is
-- still due.
if to == 'applied' then
  local target_id = f.revertTarget
  local planned = target_id and target_id ~= id and redis.call('ZSCORE', reverts, target_id)
  if target_id and (target_id == id or planned) then
    -- An extension adds its duration to the revert as planned (or to now, if that time passed):
    -- "for 3m more" is exactly that, however long its approval took.
    local from = tonumber(now)
    if planned then from = math.max(from, tonumber(planned)) end
    local due = from + tonumber(f.revertAfterMs)
    redis.call('ZADD', reverts, due, target_id)
    redis.call('ZADD', reminders, from + tonumber(f.remindAfterMs), target_id)
    -- The record the revert needs lives until the revert is due and the audit retention after it,
    -- however far a long grant or an extension pushed the revert (keys share the hash tag).
    local target = request:sub(1, #request - #id) .. target_id
    local keep = due - tonumber(now) + tonumber(ARGV[16])
    local ttl = redis.call('PTTL', target)
    if ttl >= 0 and ttl < keep then redis.call('PEXPIRE', target, keep) end
  end
  -- A revert applied: its grant is over in this same step (no "temporary" listing after the record).
  if f.revertOf then
    redis.call('ZREM', reverts, f.revertOf)
    redis.call('ZREM', reminders, f.revertOf)
  end
end
save(r)
append_audit(ARGV[7], ARGV[8], ARGV[9], ARGV[10])
return reply('ok')
`;

/**
 * KEYS: 1 request hash, 2 the service's lock. ARGV: 1 id, 2 owner, 3 fence, 4 lease ms.
 * Returns 1 when the lease (and the service lock, if this request holds it and has not sent yet)
 * now last another lease from now; 0 when the lease was lost or had already expired. Once sent,
 * the lock keeps the long expiry CONFIRM_SENDING gave it.
 */
export const RENEW_LEASE_LUA =
  LEASE_PRELUDE +
  `
local request, service_lock = KEYS[1], KEYS[2]
local id, owner, fence, ttl = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local now = now_ms()
if not lease_held(request, owner, fence, now) then return 0 end
redis.call('HSET', request, 'leaseUntil', now + ttl)
local sent = redis.call('HGET', request, 'sending') == '1'
if not sent and redis.call('GET', service_lock) == id .. ':' .. fence then redis.call('PEXPIRE', service_lock, ttl) end
return 1
`;

/**
 * KEYS: 1 request hash, 2 the service's lock. ARGV: 1 id, 2 owner, 3 fence, 4 lease ms.
 * Returns 'acquired' (now or already), 'busy' (another request holds it) or 'lost' (our lease is gone).
 */
export const LOCK_SERVICE_LUA =
  LEASE_PRELUDE +
  `
local request, service_lock = KEYS[1], KEYS[2]
local id, owner, fence, ttl = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
if not lease_held(request, owner, fence, now_ms()) then return 'lost' end
local mine = id .. ':' .. fence
if redis.call('SET', service_lock, mine, 'NX', 'PX', ttl) then return 'acquired' end
if redis.call('GET', service_lock) == mine then return 'acquired' end
return 'busy'
`;

/**
 * KEYS: 1 request hash, 2 the service's lock. ARGV: 1 id, 2 owner, 3 fence, 4 minimum ms of
 * lease left, 5 how long the lock then lasts (ms).
 * Returns 1 and marks the request as sending (with the server time) when the lease and the lock
 * are held; 0 otherwise. From then on the service stays locked until the request is settled (the
 * long expiry is only a backstop): no other request of the service may read and PATCH while this
 * update's outcome is unknown, even if its owner dies or is cut off.
 */
export const CONFIRM_SENDING_LUA =
  LEASE_PRELUDE +
  `
local request, service_lock = KEYS[1], KEYS[2]
local id, owner, fence, min_left, sent_lock_ms = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local now = now_ms()
if not lease_held(request, owner, fence, now + min_left) then return 0 end
-- The lock's long expiry, set only if it is ours: one SET that answers what it replaced. A held
-- lease implies the lock is ours (they are taken and renewed together, a takeover moves the
-- fence); should another request's lock be there all the same, it is put back, keeping the long
-- expiry (its holder deletes it when it settles, a takeover moves it on).
local mine = id .. ':' .. fence
local before = redis.call('SET', service_lock, mine, 'XX', 'PX', sent_lock_ms, 'GET')
if before ~= mine then
  if before then redis.call('SET', service_lock, before, 'KEEPTTL') end
  return 0
end
redis.call('HSET', request, 'sending', '1', 'sentAt', now)
return 1
`;

/**
 * KEYS: 1 request hash. ARGV: 1 owner, 2 fence, 3 JSON of the operations confirmed so far.
 * Returns 1 and records them while the lease is held; 0 otherwise (nothing written).
 */
export const RECORD_CONFIRMED_LUA =
  LEASE_PRELUDE +
  `
local request = KEYS[1]
local owner, fence, confirmed = ARGV[1], ARGV[2], ARGV[3]
if not lease_held(request, owner, fence, now_ms()) then return 0 end
redis.call('HSET', request, 'confirmed', confirmed)
return 1
`;

/**
 * KEYS: 1 request hash, 2 the service's lock. ARGV: 1 new owner, 2 lease ms, 3 how long a request
 * claimed without any lease (by a replica older than leases) must have been applying first, 4 id.
 * A request in "applying" whose lease has expired passes to the new owner with fence + 1, and so
 * does the service lock if the old fence held it (the settler must not wait behind itself).
 * Returns the HGETALL afterwards (with takenAt, the server time), or nil.
 */
export const TAKE_OVER_LUA =
  LEASE_PRELUDE +
  `
local request, service_lock = KEYS[1], KEYS[2]
local owner, ttl, legacy_ms, id = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local now = now_ms()
local f = redis.call('HMGET', request, 'status', 'leaseUntil', 'fence', 'decidedAt')
if f[1] ~= 'applying' then return false end
if f[2] then
  if tonumber(f[2]) > now then return false end
elseif tonumber(f[4] or '0') + legacy_ms > now then
  return false
end
local old_fence = f[3] or '0'
local fence = redis.call('HINCRBY', request, 'fence', 1)
redis.call('HSET', request, 'leaseOwner', owner, 'leaseUntil', now + ttl, 'takenAt', now)
if redis.call('GET', service_lock) == id .. ':' .. old_fence then
  redis.call('SET', service_lock, id .. ':' .. fence, 'KEEPTTL')
end
return redis.call('HGETALL', request)
`;

/**
 * KEYS: 1 request hash. ARGV: 1 messageTs.
 * A plain HSET would recreate a missing (expired) request as a hash holding only messageTs.
 */
export const SET_POSTED_COMMAND = 'chbotSetChangePosted';

/**
 * Where a request was posted, in one round trip: its approval channel's message (when given) and
 * its message; a request still pending joins the nudges, due at once (the nudger's next look
 * computes when its first reminder or escalation is due).
 * KEYS: 1 request hash, 2 nudges zset. ARGV: 1 request id, 2 messageTs, 3 approvalTs or ''.
 * Returns 0 when the request is gone, else 1.
 */
export const SET_POSTED_LUA = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 0 end
if ARGV[3] ~= '' then
  redis.call('HSET', KEYS[1], 'messageTs', ARGV[2], 'approvalTs', ARGV[3])
else
  redis.call('HSET', KEYS[1], 'messageTs', ARGV[2])
end
if status == 'pending' then redis.call('ZADD', KEYS[2], 0, ARGV[1]) end
return 1
`;

export const SET_MESSAGE_TS_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[2] or 'messageTs', ARGV[1])
return 1
`;

export const CLAIM_RUN_COMMAND = 'chbotClaimRun';

/**
 * Compare-and-set of a schedule's last fire time: the first replica to claim a fire time wins
 * it, and no replica can claim it (or an earlier one) again.
 * KEYS: 1 last-run hash. ARGV: 1 schedule id, 2 fire time (ms). Returns 1 when claimed, else 0.
 */
export const CLAIM_RUN_LUA = `
local last = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '-1')
local fire = tonumber(ARGV[2])
if fire <= last then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
`;

export const ADD_SCHEDULE_COMMAND = 'chbotAddSchedule';

/**
 * Adds a schedule only if its id is free and its channel has fewer than the most allowed.
 * KEYS: 1 schedules hash. ARGV: 1 id, 2 schedule JSON, 3 most per channel (0: no limit),
 * 4 the JSON text `"channelId":"<id>"` every schedule of that channel contains.
 * Returns 'ok', 'exists' or 'channel-full'.
 */
export const ADD_SCHEDULE_LUA = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 'exists' end
local most = tonumber(ARGV[3])
if most > 0 then
  local count = 0
  for _, json in ipairs(redis.call('HVALS', KEYS[1])) do
    if string.find(json, ARGV[4], 1, true) then count = count + 1 end
  end
  if count >= most then return 'channel-full' end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 'ok'
`;

export const START_RUN_COMMAND = 'chbotStartRun';

/**
 * Marks a schedule's run as posting until ARGV 3, unless a run of it is still posting.
 * KEYS: 1 running hash. ARGV: 1 schedule id, 2 now (ms), 3 until (ms). Returns 1 or 0.
 */
export const START_RUN_LUA = `
local until_ms = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if until_ms > tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
`;

export const ADD_APPROVAL_COMMAND = 'chbotAddApproval';

/**
 * KEYS: 1 request hash, 2 applying set, 3 audit stream, 4 index of all pending requests,
 *       5 audit stream of the service in the channel, 6 scheduled requests (zset, by applyAt),
 *       7 the service's lock, 8 the channel's set of services with an audit stream
 * ARGV: 1 id, 2 now, 3 approver, 4 requirement indices it counts for ("0,2"), 5 audit MINID (unix ms),
 *       6 summary, 7 audit message or '', 8 message appended when it completes the request,
 *       9 message of the automatic expiry entry, 10 owner claiming the lease when this approval
 *       completes the request (as a transition to applying does) or '', 11 its lease in ms,
 *       12 audit retention (ms), 13 a scheduled request's applyAt or '': when this approval
 *       completes it, it moves to "scheduled" (into KEYS 6 at that score) instead of "applying"
 *       14 the request's retention (ms): a request moved to "scheduled" is kept that long after its time
 *       15 audit streams' expiry (ms), 16 which streams to renew it on ("01")
 * The request hash holds `need` ("2,1,0": approvals per requirement; absent = "1") and one field
 * `approved:<user>` = "<seq>|<at>|<indices>" per approval, seq counting in the order the approvals
 * were recorded here (clicks' own clocks may disagree across replicas). Returns {'missing'} or {reason, complete,
 * the request's fields afterwards, 1 when completing it took the service's lock too}, reason one of
 * 'ok', 'conflict', 'expired', 'already-approved', 'not-needed'.
 */
export const ADD_APPROVAL_LUA =
  LEASE_PRELUDE +
  `
local request, applying, audit, open = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local id, now, user, counts, minid = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local claim_owner, claim_ttl = ARGV[10], ARGV[11]

local r = read_request(request)
if not r then return {'missing'} end
local f = r.fields
local locked = 0

local function append_audit(action, message)
  append_request_audit({audit, KEYS[5]}, KEYS[8], ARGV[16], minid, ARGV[15], r, id, now, user, action, ARGV[6], '', message)
end

local function indices(text)
  local list = {}
  for index in string.gmatch(text, '%d+') do list[#list + 1] = tonumber(index) end
  return list
end

-- Approvals counted per requirement (0-based index -> count), from every approved:<user> field.
local function tally()
  local counted = {}
  for field, value in pairs(f) do
    if string.sub(field, 1, 9) == 'approved:' then
      local given = string.match(value, '|[^|]*|(.*)$') or ''
      for _, index in ipairs(indices(given)) do counted[index] = (counted[index] or 0) + 1 end
    end
  end
  return counted
end

local function reply(reason, complete)
  return {reason, complete, flat_fields(r), locked}
end

local status = f.status
if status == 'pending' and tonumber(now) >= tonumber(f.expiresAt) then
  put(r, 'status', 'expired')
  save(r)
  redis.call('ZREM', open, id)
  append_audit('expired', ARGV[9])
  return reply('expired', 0)
end
if status ~= 'pending' then return reply('conflict', 0) end
if f['approved:' .. user] then return reply('already-approved', 0) end

local need = indices(f.need or '1')
local before = tally()
local needed = false
for _, index in ipairs(indices(counts)) do
  local wanted = need[index + 1]
  if wanted and (before[index] or 0) < wanted then needed = true end
end
if not needed then return reply('not-needed', 0) end

local seq = (tonumber(f.approvalSeq or '0') or 0) + 1
put(r, 'approvalSeq', int(seq), 'approved:' .. user, int(seq) .. '|' .. now .. '|' .. counts)
-- The tally with this approval: the one before, plus what it counts for.
local after = before
for _, index in ipairs(indices(counts)) do after[index] = (after[index] or 0) + 1 end
local complete = 1
for position, wanted in ipairs(need) do
  if (after[position - 1] or 0) < wanted then complete = 0 end
end
local message = ARGV[7]
if complete == 1 and ARGV[13] ~= '' then
  -- applyAt also here: a request deferred to its window's opening at approval gets its time only now
  put(r, 'status', 'scheduled', 'decidedBy', user, 'decidedAt', now, 'applyAt', ARGV[13])
  redis.call('ZADD', KEYS[6], ARGV[13], id)
  redis.call('ZREM', open, id)
  -- Deferred to a window's opening, it may wait past its expiry (a freeze over the next opening):
  -- its record lives until its time and the retention after it, as one scheduled when asked does.
  local keep = tonumber(ARGV[13]) - tonumber(now) + tonumber(ARGV[14])
  local ttl = redis.call('PTTL', request)
  if ttl >= 0 and ttl < keep then redis.call('PEXPIRE', request, keep) end
  if ARGV[8] ~= '' then message = (message ~= '' and (message .. ' ') or '') .. ARGV[8] end
elseif complete == 1 then
  put(r, 'status', 'applying', 'decidedBy', user, 'decidedAt', now)
  redis.call('SADD', applying, id)
  redis.call('ZREM', open, id)
  if claim_owner ~= '' then locked = grant_lease(r, claim_owner, claim_ttl, KEYS[7], id) end
  if ARGV[8] ~= '' then message = (message ~= '' and (message .. ' ') or '') .. ARGV[8] end
end
save(r)
append_audit('approved', message)
return reply('ok', complete)
`;

/**
 * Moves a scheduled revert to its retry and notes when it was due as planned: its score now (or
 * the time it failed, if earlier: asked before its time), unless the note already says this score
 * is an earlier retry, whose planned time it keeps.
 * KEYS: reverts, reverts:retrying. ARGV: id, retry at (ms), now (ms).
 */
export const POSTPONE_REVERT_LUA = `
local due = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not due then return 0 end
local planned = due
if tonumber(ARGV[3]) < tonumber(due) then planned = ARGV[3] end
local note = redis.call('HGET', KEYS[2], ARGV[1])
if note then
  local first, retry = string.match(note, '^(%d+):(%d+)$')
  if first and tonumber(retry) == tonumber(due) then planned = first end
end
redis.call('ZADD', KEYS[1], 'XX', ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], string.format('%d', tonumber(planned)) .. ':' .. ARGV[2])
return 1
`;

/**
 * Drops the retry notes of these ids that do not match their revert's score (gone, or scheduled
 * anew), as they are now: a note another replica wrote since they were read is kept.
 * KEYS: reverts, reverts:retrying. ARGV: ids.
 */
export const DROP_STALE_RETRY_NOTES_LUA = `
for _, id in ipairs(ARGV) do
  local note = redis.call('HGET', KEYS[2], id)
  if note then
    local due = redis.call('ZSCORE', KEYS[1], id)
    local _, retry = string.match(note, '^(%d+):(%d+)$')
    if not due or not retry or tonumber(retry) ~= tonumber(due) then redis.call('HDEL', KEYS[2], id) end
  end
end
return 0
`;
