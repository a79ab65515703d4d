-- A reveal: whoever runs it first gets the value, and it is gone. Returns {outcome, ...}:
-- 'unknown'; 'already', revealedAt; 'expired'; 'not-yours', owner; 'revealed', sealed. Label and
-- expiry come from meta in every case.
--! key meta           what is known of the secret (owner, label, expiry, when it was revealed)
--! key sealed         the sealed value
--! arg user_id
--! arg now            ms
--! arg remembered_ms  how long meta is kept once revealed

local owner, label, expiresAt, revealedAt = unpack(redis.call('HMGET', meta, 'owner', 'label', 'expiresAt', 'revealedAt'))
if not owner then return {'unknown'} end
if revealedAt then return {'already', label, expiresAt, revealedAt} end
local value = redis.call('GET', sealed)
if not value or tonumber(now) >= tonumber(expiresAt) then
  redis.call('DEL', sealed)
  return {'expired', label, expiresAt}
end
if owner ~= user_id then return {'not-yours', label, expiresAt, owner} end
redis.call('DEL', sealed)
redis.call('HSET', meta, 'revealedAt', now)
redis.call('PEXPIRE', meta, remembered_ms)
return {'revealed', label, expiresAt, value}
