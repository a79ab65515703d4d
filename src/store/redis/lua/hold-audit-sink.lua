-- Takes or keeps an export sink's lease. Returns 1 when `holder` holds it for `ttl_ms` from now, else 0.
--! key lease
--! arg holder
--! arg ttl_ms

if redis.call('GET', lease) == holder then
  redis.call('PEXPIRE', lease, ttl_ms)
  return 1
end
return redis.call('SET', lease, holder, 'NX', 'PX', ttl_ms) and 1 or 0
