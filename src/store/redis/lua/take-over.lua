-- A request in "applying" whose lease has expired passes to the new owner with fence + 1, and so
-- does the service lock if the old fence held it (the settler must not wait behind itself).
-- Returns the HGETALL afterwards (with takenAt, the server time), or nil.
--! include lease-prelude
--! key request        the request hash
--! key service_lock
--! arg owner          the new owner
--! arg ttl_ms         its lease
--! arg legacy_ms      how long a request claimed without any lease (by a replica older than leases) must have been applying first
--! arg id

local ttl = tonumber(ttl_ms)
local now = now_ms()
local f = redis.call('HMGET', request, 'status', 'leaseUntil', 'fence', 'decidedAt')
if f[1] ~= 'applying' then return false end
if f[2] then
  if tonumber(f[2]) > now then return false end
elseif tonumber(f[4] or '0') + tonumber(legacy_ms) > now then
  return false
end
local old_fence = f[3] or '0'
local fence = redis.call('HINCRBY', request, 'fence', 1)
redis.call('HSET', request, 'leaseOwner', owner, 'leaseUntil', now + ttl, 'takenAt', now)
if redis.call('GET', service_lock) == id .. ':' .. old_fence then
  redis.call('SET', service_lock, id .. ':' .. fence, 'KEEPTTL')
end
return redis.call('HGETALL', request)
