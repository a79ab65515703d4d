-- Gives up an export sink's lease, if `holder` still holds it.
--! key lease
--! arg holder

if redis.call('GET', lease) == holder then return redis.call('DEL', lease) end
return 0
