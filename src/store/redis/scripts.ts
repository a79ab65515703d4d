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
/**
 * KEYS: 1 request hash, 2 channel's pending index, 3 audit stream
 * ARGV: 1 id, 2 expiresAt, 3 retention deadline (unix ms), 4 ms until that deadline,
 *       5 prune pending members scored at or below this, 6 audit MAXLEN,
 *       7 n = count of hash arguments, 8..7+n hash field/value pairs, then audit field/value pairs
 * Returns 1 when created, 0 when the id already exists.
 */
export const CREATE_LUA = `
local request, pending, audit = KEYS[1], KEYS[2], KEYS[3]
if redis.call('EXISTS', request) == 1 then return 0 end

local hashEnd = 7 + tonumber(ARGV[7])
redis.call('HSET', request, unpack(ARGV, 8, hashEnd))
redis.call('PEXPIREAT', request, ARGV[3])

-- Members whose request hash has already expired can never be listed again.
redis.call('ZREMRANGEBYSCORE', pending, '-inf', ARGV[5])
local ttl = tonumber(ARGV[4])
if ttl > 0 then
  redis.call('ZADD', pending, ARGV[2], ARGV[1])
  -- The index lives as long as its longest-lived request (PTTL is -1 on a fresh key).
  if redis.call('PTTL', pending) < ttl then redis.call('PEXPIRE', pending, ttl) end
end

redis.call('XADD', audit, 'MAXLEN', '~', ARGV[6], '*', unpack(ARGV, hashEnd + 1))
return 1
`;

/**
 * KEYS: 1 request hash, 2 applying set, 3 audit stream
 * ARGV: 1 id, 2 now, 3 to, 4 actorId, 5 outcome JSON or '', 6 audit MAXLEN,
 *       7 audit action, 8 summary, 9 apiRequestId or '', 10 message or '',
 *       11 message of the automatic expiry entry, 12.. statuses the transition starts from
 * Returns {'missing'} or {reason, HGETALL of the request afterwards}, reason one of
 * 'ok', 'conflict', 'expired'.
 */
export const TRANSITION_LUA = `
local request, applying, audit = KEYS[1], KEYS[2], KEYS[3]
local id, now, to, actor, outcome, maxlen = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]

local function append_audit(action, summary, api_request_id, message)
  local about = redis.call('HMGET', request, 'channelId', 'serviceId', 'serviceName')
  local fields = {
    'at', now, 'action', action, 'changeId', id, 'actorId', actor,
    'channelId', about[1], 'serviceId', about[2], 'serviceName', about[3], 'summary', summary,
  }
  if api_request_id ~= '' then
    fields[#fields + 1] = 'apiRequestId'
    fields[#fields + 1] = api_request_id
  end
  if message ~= '' then
    fields[#fields + 1] = 'message'
    fields[#fields + 1] = message
  end
  redis.call('XADD', audit, 'MAXLEN', '~', maxlen, '*', unpack(fields))
end

local function reply(reason)
  return {reason, redis.call('HGETALL', request)}
end

local status = redis.call('HGET', request, 'status')
if not status then return {'missing'} end

local expires_at = tonumber(redis.call('HGET', request, 'expiresAt'))
if status == 'pending' and to ~= 'expired' and tonumber(now) >= expires_at then
  redis.call('HSET', request, 'status', 'expired')
  append_audit('expired', ARGV[8], '', ARGV[11])
  return reply('expired')
end

local allowed = false
for i = 12, #ARGV do
  if ARGV[i] == status then allowed = true break end
end
if not allowed then return reply('conflict') end

redis.call('HSET', request, 'status', to)
if status == 'pending' and to ~= 'pending' then
  redis.call('HSET', request, 'decidedBy', actor, 'decidedAt', now)
end
if outcome ~= '' then redis.call('HSET', request, 'outcome', outcome) end
if status == 'applying' then redis.call('SREM', applying, id) end
if to == 'applying' then redis.call('SADD', applying, id) end
append_audit(ARGV[7], ARGV[8], ARGV[9], ARGV[10])
return reply('ok')
`;

/**
 * KEYS: 1 request hash. ARGV: 1 messageTs.
 * A plain HSET would recreate a missing (expired) request as a hash holding only messageTs.
 */
export const SET_MESSAGE_TS_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'messageTs', ARGV[1])
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

export const ADD_APPROVAL_COMMAND = 'chbotAddApproval';

/**
 * KEYS: 1 request hash, 2 applying set, 3 audit stream
 * ARGV: 1 id, 2 now, 3 approver, 4 requirement indices it counts for ("0,2"), 5 audit MAXLEN,
 *       6 summary, 7 audit message or '', 8 message appended when it completes the request,
 *       9 message of the automatic expiry entry
 * The request hash holds `need` ("2,1,0": approvals per requirement; absent = "1") and one field
 * `approved:<user>` = "<seq>|<at>|<indices>" per approval, seq counting in the order the approvals
 * were recorded here (clicks' own clocks may disagree across replicas). Returns {'missing'} or {reason, complete,
 * HGETALL afterwards}, reason one of 'ok', 'conflict', 'expired', 'already-approved', 'not-needed'.
 */
export const ADD_APPROVAL_LUA = `
local request, applying, audit = KEYS[1], KEYS[2], KEYS[3]
local id, now, user, counts, maxlen = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]

local function append_audit(action, message)
  local about = redis.call('HMGET', request, 'channelId', 'serviceId', 'serviceName')
  local fields = {
    'at', now, 'action', action, 'changeId', id, 'actorId', user,
    'channelId', about[1], 'serviceId', about[2], 'serviceName', about[3], 'summary', ARGV[6],
  }
  if message ~= '' then
    fields[#fields + 1] = 'message'
    fields[#fields + 1] = message
  end
  redis.call('XADD', audit, 'MAXLEN', '~', maxlen, '*', unpack(fields))
end

local function indices(text)
  local list = {}
  for index in string.gmatch(text, '%d+') do list[#list + 1] = tonumber(index) end
  return list
end

-- Approvals counted per requirement (0-based index -> count), from every approved:<user> field.
local function tally()
  local counted = {}
  local fields = redis.call('HGETALL', request)
  for i = 1, #fields, 2 do
    if string.sub(fields[i], 1, 9) == 'approved:' then
      local given = string.match(fields[i + 1], '|[^|]*|(.*)$') or ''
      for _, index in ipairs(indices(given)) do counted[index] = (counted[index] or 0) + 1 end
    end
  end
  return counted
end

local function reply(reason, complete)
  return {reason, complete, redis.call('HGETALL', request)}
end

local status = redis.call('HGET', request, 'status')
if not status then return {'missing'} end
if status == 'pending' and tonumber(now) >= tonumber(redis.call('HGET', request, 'expiresAt')) then
  redis.call('HSET', request, 'status', 'expired')
  append_audit('expired', ARGV[9])
  return reply('expired', 0)
end
if status ~= 'pending' then return reply('conflict', 0) end
if redis.call('HEXISTS', request, 'approved:' .. user) == 1 then return reply('already-approved', 0) end

local need = indices(redis.call('HGET', request, 'need') or '1')
local before = tally()
local needed = false
for _, index in ipairs(indices(counts)) do
  local wanted = need[index + 1]
  if wanted and (before[index] or 0) < wanted then needed = true end
end
if not needed then return reply('not-needed', 0) end

local seq = redis.call('HINCRBY', request, 'approvalSeq', 1)
redis.call('HSET', request, 'approved:' .. user, seq .. '|' .. now .. '|' .. counts)
local after = tally()
local complete = 1
for position, wanted in ipairs(need) do
  if (after[position - 1] or 0) < wanted then complete = 0 end
end
local message = ARGV[7]
if complete == 1 then
  redis.call('HSET', request, 'status', 'applying', 'decidedBy', user, 'decidedAt', now)
  redis.call('SADD', applying, id)
  if ARGV[8] ~= '' then message = (message ~= '' and (message .. ' ') or '') .. ARGV[8] end
end
append_audit('approved', message)
return reply('ok', complete)
`;

