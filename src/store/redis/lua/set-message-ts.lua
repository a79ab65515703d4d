-- Sets one message timestamp field of a request that still exists (a plain HSET would recreate a
-- missing, expired request as a hash holding only that field). Returns 1, or 0 when it is gone.
--! key request        the request hash
--! arg ts
--! arg field          the field, e.g. reminderTs

if redis.call('EXISTS', request) == 0 then return 0 end
redis.call('HSET', request, field, ts)
return 1
