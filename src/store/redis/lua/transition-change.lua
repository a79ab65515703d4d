-- Moves a request from one of `from_statuses` to `to`, with its audit entry, in one step.
-- Returns {'missing'} or {reason, the request's fields afterwards, 1 when a claim took the service's
-- lock too}, reason one of 'ok', 'conflict', 'expired', 'lost' (the holder's fence is outdated).
--! include lease-prelude
--! key request             the request hash
--! key applying            the applying set
--! key audit               the audit stream
--! key service_lock        the service's lock
--! key open                the index of all pending requests
--! key service_audit       the audit stream of the service in the channel
--! key reverts             reverts due (zset)
--! key reminders           reminders due (zset)
--! key scheduled           scheduled requests (zset, by applyAt)
--! key services            the channel's set of services with an audit stream
--! arg id
--! arg now
--! arg to
--! arg actor               the actor's user id
--! arg outcome             outcome JSON or ''
--! arg audit_minid         audit MINID (unix ms)
--! arg action              the audit entry's action
--! arg summary
--! arg api_request_id      or ''
--! arg message             or ''
--! arg expiry_message      the message of the automatic expiry entry
--! arg claim_owner         owner claiming a lease (to = applying) or ''
--! arg claim_ttl           its lease in ms
--! arg holder_owner        owner holding the lease (leaving applying) or ''
--! arg holder_fence        its fence
--! arg audit_retention_ms
--! arg stream_ttl_ms       the audit streams' expiry
--! arg renew               which streams to renew it on
--! rest from_statuses      the statuses the transition starts from

local r = read_request(request)
if not r then return {'missing'} end
local f = r.fields
local locked = 0

local function append_audit(entry_action, entry_api_request_id, entry_message)
  append_request_audit({audit, service_audit}, services, renew, audit_minid, stream_ttl_ms, r, id, now, actor, entry_action, summary, entry_api_request_id, entry_message)
end

local function reply(reason)
  return {reason, flat_fields(r), locked}
end

local status = f.status
if status == 'pending' and to ~= 'expired' and tonumber(now) >= tonumber(f.expiresAt) then
  put(r, 'status', 'expired')
  save(r)
  redis.call('ZREM', open, id)
  append_audit('expired', '', expiry_message)
  return reply('expired')
end

local allowed = false
for _, from_status in ipairs(from_statuses) do
  if from_status == status then allowed = true break end
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
    local keep = due - tonumber(now) + tonumber(audit_retention_ms)
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
append_audit(action, api_request_id, message)
return reply('ok')
