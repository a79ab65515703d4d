-- Returns 1 and records the operations confirmed so far while the lease is held; 0 otherwise
-- (nothing written).
--! include lease-prelude
--! key request        the request hash
--! arg owner
--! arg fence
--! arg confirmed      JSON of the operations confirmed so far

if not lease_held(request, owner, fence, now_ms()) then return 0 end
redis.call('HSET', request, 'confirmed', confirmed)
return 1
