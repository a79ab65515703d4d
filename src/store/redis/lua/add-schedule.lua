-- Adds a schedule only if its id is free and its channel has fewer than the most allowed.
-- Returns 'ok', 'exists' or 'channel-full'.
--! key schedules      the schedules hash
--! arg id
--! arg schedule_json
--! arg most_per_channel   0: no limit
--! arg channel_needle     the JSON text `"channelId":"<id>"` every schedule of that channel contains

if redis.call('HEXISTS', schedules, id) == 1 then return 'exists' end
local most = tonumber(most_per_channel)
if most > 0 then
  local count = 0
  for _, json in ipairs(redis.call('HVALS', schedules)) do
    if string.find(json, channel_needle, 1, true) then count = count + 1 end
  end
  if count >= most then return 'channel-full' end
end
redis.call('HSET', schedules, id, schedule_json)
return 'ok'
