-- Creates a change request: its hash, its place in the pending indexes and its "requested" audit
-- entry. Returns 1 when created, 0 when the id already exists.
--! include lease-prelude
--! key request             the request hash
--! key pending             the channel's pending index
--! key audit               the audit stream
--! key open                the index of all pending requests
--! key service_audit       the audit stream of the service in the channel
--! key services            the channel's set of services with an audit stream
--! arg id
--! arg expires_at
--! arg retention_deadline  when the request hash expires (unix ms)
--! arg retention_ms        ms until that deadline
--! arg prune_before        pending members scored at or below this are dropped
--! arg audit_minid         audit MINID (unix ms)
--! arg stream_ttl_ms       the audit streams' expiry
--! arg renew               which of the two streams to renew it on ("10")
--! arg hash_count          how many of `fields` are the hash's (field/value pairs)
--! arg service_id
--! rest fields             the hash's field/value pairs, then the audit entry's

if redis.call('EXISTS', request) == 1 then return 0 end

hash_count = tonumber(hash_count)
redis.call('HSET', request, unpack(fields, 1, hash_count))
redis.call('PEXPIREAT', request, retention_deadline)

-- Members whose request hash has already expired can never be listed again.
redis.call('ZREMRANGEBYSCORE', pending, '-inf', prune_before)
redis.call('ZREMRANGEBYSCORE', open, '-inf', prune_before)
local ttl = tonumber(retention_ms)
if ttl > 0 then
  redis.call('ZADD', pending, expires_at, id)
  redis.call('ZADD', open, expires_at, id)
  -- The index lives as long as its longest-lived request (PTTL is -1 on a fresh key).
  if redis.call('PTTL', pending) < ttl then redis.call('PEXPIRE', pending, ttl) end
end

append_entry({audit, service_audit}, renew, audit_minid, stream_ttl_ms, {unpack(fields, hash_count + 1)}, services, service_id)
return 1
