-- Returns 1 and marks the request as sending (with the server time) when the lease and the lock
-- are held; 0 otherwise. From then on the service stays locked until the request is settled (the
-- long expiry is only a backstop): no other request of the service may read and PATCH while this
-- update's outcome is unknown, even if its owner dies or is cut off.
--! include lease-prelude
--! key request        the request hash
--! key service_lock
--! arg id
--! arg owner
--! arg fence
--! arg min_left_ms    the least lease that must be left
--! arg sent_lock_ms   how long the lock then lasts

local now = now_ms()
if not lease_held(request, owner, fence, now + tonumber(min_left_ms)) then return 0 end
-- The lock's long expiry, set only if it is ours: one SET that answers what it replaced. A held
-- lease implies the lock is ours (they are taken and renewed together, a takeover moves the
-- fence); should another request's lock be there all the same, it is put back, keeping the long
-- expiry (its holder deletes it when it settles, a takeover moves it on).
local mine = id .. ':' .. fence
local before = redis.call('SET', service_lock, mine, 'XX', 'PX', tonumber(sent_lock_ms), 'GET')
if before ~= mine then
  if before then redis.call('SET', service_lock, before, 'KEEPTTL') end
  return 0
end
redis.call('HSET', request, 'sending', '1', 'sentAt', now)
return 1
