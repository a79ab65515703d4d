-- Moves a scheduled revert to its retry and notes when it was due as planned: its score now (or
-- the time it failed, if earlier: asked before its time), unless the note already says this score
-- is an earlier retry, whose planned time it keeps.
--! key reverts        the reverts zset
--! key retrying       the reverts' retry notes
--! arg id
--! arg retry_at       ms
--! arg now            ms

local due = redis.call('ZSCORE', reverts, id)
if not due then return 0 end
local planned = due
if tonumber(now) < tonumber(due) then planned = now end
local note = redis.call('HGET', retrying, id)
if note then
  local first, retry = string.match(note, '^(%d+):(%d+)$')
  if first and tonumber(retry) == tonumber(due) then planned = first end
end
redis.call('ZADD', reverts, 'XX', retry_at, id)
redis.call('HSET', retrying, id, string.format('%d', tonumber(planned)) .. ':' .. retry_at)
return 1
