-- Where a request was posted, in one round trip: its approval channel's message (when given) and
-- its message; a request still pending joins the nudges, due at once (the nudger's next look
-- computes when its first reminder or escalation is due). Returns 0 when the request is gone,
-- else 1. A plain HSET would recreate a missing (expired) request as a hash holding only these.
--! key request        the request hash
--! key nudges         the nudges zset
--! arg id
--! arg message_ts
--! arg approval_ts    or ''

local status = redis.call('HGET', request, 'status')
if not status then return 0 end
if approval_ts ~= '' then
  redis.call('HSET', request, 'messageTs', message_ts, 'approvalTs', approval_ts)
else
  redis.call('HSET', request, 'messageTs', message_ts)
end
if status == 'pending' then redis.call('ZADD', nudges, 0, id) end
return 1
