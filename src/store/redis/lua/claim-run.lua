-- Compare-and-set of a schedule's last fire time: the first replica to claim a fire time wins
-- it, and no replica can claim it (or an earlier one) again. Returns 1 when claimed, else 0.
--! key last_run       the last-run hash
--! arg schedule_id
--! arg fire_time      ms

local last = tonumber(redis.call('HGET', last_run, schedule_id) or '-1')
if tonumber(fire_time) <= last then return 0 end
redis.call('HSET', last_run, schedule_id, fire_time)
return 1
