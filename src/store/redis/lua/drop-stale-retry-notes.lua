-- Drops the retry notes of these ids that do not match their revert's score (gone, or scheduled
-- anew), as they are now: a note another replica wrote since they were read is kept.
--! key reverts        the reverts zset
--! key retrying       the reverts' retry notes
--! rest ids

for _, id in ipairs(ids) do
  local note = redis.call('HGET', retrying, id)
  if note then
    local due = redis.call('ZSCORE', reverts, id)
    local _, retry = string.match(note, '^(%d+):(%d+)$')
    if not due or not retry or tonumber(retry) ~= tonumber(due) then redis.call('HDEL', retrying, id) end
  end
end
return 0
