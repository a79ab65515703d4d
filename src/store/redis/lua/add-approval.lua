-- Records one approval and, when it is the last one needed, completes the request (to "applying",
-- or to "scheduled" when it has an apply time), in one step.
-- The request hash holds `need` ("2,1,0": approvals per requirement; absent = "1") and one field
-- `approved:<user>` = "<seq>|<at>|<indices>" per approval, seq counting in the order the approvals
-- were recorded here (clicks' own clocks may disagree across replicas). Returns {'missing'} or
-- {reason, complete, the request's fields afterwards, 1 when completing it took the service's lock
-- too}, reason one of 'ok', 'conflict', 'expired', 'already-approved', 'not-needed'.
--! include lease-prelude
--! key request             the request hash
--! key applying            the applying set
--! key audit               the audit stream
--! key open                the index of all pending requests
--! key service_audit       the audit stream of the service in the channel
--! key scheduled           scheduled requests (zset, by applyAt)
--! key service_lock        the service's lock
--! key services            the channel's set of services with an audit stream
--! arg id
--! arg now
--! arg user                the approver
--! arg counts              the requirement indices the approval counts for ("0,2")
--! arg audit_minid         audit MINID (unix ms)
--! arg summary
--! arg message             the audit message or ''
--! arg completes_message   appended when the approval completes the request
--! arg expiry_message      the message of the automatic expiry entry
--! arg claim_owner         owner claiming the lease when this approval completes the request (as a transition to applying does) or ''
--! arg claim_ttl           its lease in ms
--! arg apply_at            a scheduled request's applyAt or '': completed, it moves to "scheduled" (into `scheduled` at that score) instead of "applying"
--! arg retention_ms        a request moved to "scheduled" is kept that long after its time
--! arg stream_ttl_ms       the audit streams' expiry
--! arg renew               which streams to renew it on ("01")

local r = read_request(request)
if not r then return {'missing'} end
local f = r.fields
local locked = 0

local function append_audit(entry_action, entry_message)
  append_request_audit({audit, service_audit}, services, renew, audit_minid, stream_ttl_ms, r, id, now, user, entry_action, summary, '', entry_message)
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
  append_audit('expired', expiry_message)
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
if complete == 1 and apply_at ~= '' then
  -- applyAt also here: a request deferred to its window's opening at approval gets its time only now
  put(r, 'status', 'scheduled', 'decidedBy', user, 'decidedAt', now, 'applyAt', apply_at)
  redis.call('ZADD', scheduled, apply_at, id)
  redis.call('ZREM', open, id)
  -- Deferred to a window's opening, it may wait past its expiry (a freeze over the next opening):
  -- its record lives until its time and the retention after it, as one scheduled when asked does.
  local keep = tonumber(apply_at) - tonumber(now) + tonumber(retention_ms)
  local ttl = redis.call('PTTL', request)
  if ttl >= 0 and ttl < keep then redis.call('PEXPIRE', request, keep) end
  if completes_message ~= '' then message = (message ~= '' and (message .. ' ') or '') .. completes_message end
elseif complete == 1 then
  put(r, 'status', 'applying', 'decidedBy', user, 'decidedAt', now)
  redis.call('SADD', applying, id)
  redis.call('ZREM', open, id)
  if claim_owner ~= '' then locked = grant_lease(r, claim_owner, claim_ttl, service_lock, id) end
  if completes_message ~= '' then message = (message ~= '' and (message .. ' ') or '') .. completes_message end
end
save(r)
append_audit('approved', message)
return reply('ok', complete)
