-- Marks a schedule's run as posting until `posting_until`, unless a run of it is still posting.
-- Returns 1 or 0.
--! key running        the running hash
--! arg schedule_id
--! arg now            ms
--! arg posting_until  ms

local running_until = tonumber(redis.call('HGET', running, schedule_id) or '0')
if running_until > tonumber(now) then return 0 end
redis.call('HSET', running, schedule_id, posting_until)
return 1
