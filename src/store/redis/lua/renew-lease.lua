-- Returns 1 when the lease (and the service lock, if this request holds it and has not sent yet)
-- now last another lease from now; 0 when the lease was lost or had already expired. Once sent,
-- the lock keeps the long expiry confirm-sending gave it.
--! include lease-prelude
--! key request        the request hash
--! key service_lock
--! arg id
--! arg owner
--! arg fence
--! arg ttl_ms         the lease

local ttl = tonumber(ttl_ms)
local now = now_ms()
if not lease_held(request, owner, fence, now) then return 0 end
redis.call('HSET', request, 'leaseUntil', now + ttl)
local sent = redis.call('HGET', request, 'sending') == '1'
if not sent and redis.call('GET', service_lock) == id .. ':' .. fence then redis.call('PEXPIRE', service_lock, ttl) end
return 1
