-- Returns 'acquired' (now or already), 'busy' (another request holds it) or 'lost' (our lease is gone).
--! include lease-prelude
--! key request        the request hash
--! key service_lock
--! arg id
--! arg owner
--! arg fence
--! arg ttl_ms         the lease

local ttl = tonumber(ttl_ms)
if not lease_held(request, owner, fence, now_ms()) then return 'lost' end
local mine = id .. ':' .. fence
if redis.call('SET', service_lock, mine, 'NX', 'PX', ttl) then return 'acquired' end
if redis.call('GET', service_lock) == mine then return 'acquired' end
return 'busy'
