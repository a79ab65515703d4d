-- Opens an export sink's consumer group. A new group starts at the end of the stream (start '$'),
-- with its read counter set to the entries ever added: Redis leaves it unknown otherwise, and it
-- is what tells entries trimmed unread apart. A group reopened after the stream expired starts at
-- its beginning (start '0'): every entry of the new stream was written after the old one, group
-- and all, was gone.
--! key stream         the audit stream
--! arg group
--! arg start          '$' or '0'

local added = 0
if redis.call('EXISTS', stream) == 1 then
  local info = redis.call('XINFO', 'STREAM', stream)
  for i = 1, #info, 2 do
    if info[i] == 'entries-added' then added = info[i + 1] end
  end
end
if start == '0' then added = 0 end
local created = redis.pcall('XGROUP', 'CREATE', stream, group, start, 'MKSTREAM', 'ENTRIESREAD', added)
if type(created) == 'table' and created.err and not string.find(created.err, 'BUSYGROUP') then
  return redis.error_reply(created.err)
end
return 1
