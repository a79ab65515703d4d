-- Shared by the change scripts (--! include lease-prelude): the request as a table, leases and
-- audit entries. Lease times are on the Redis server's clock (TIME), so replicas whose clocks
-- disagree still agree on when a lease has expired. A step reads its request once (HGETALL),
-- changes the table and writes what changed in one HSET: the server's work per step is what
-- Redis counts per approval (issue 29).

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function int(n)
  return string.format('%d', n)
end

-- The request hash as a table (nil when it is gone), and the fields a step changes in it.
local function read_request(key)
  local flat = redis.call('HGETALL', key)
  if #flat == 0 then return nil end
  local fields = {}
  for i = 1, #flat, 2 do fields[flat[i]] = flat[i + 1] end
  return {key = key, fields = fields, changed = {}}
end

local function put(r, ...)
  local pairs_ = {...}
  for i = 1, #pairs_, 2 do
    r.fields[pairs_[i]] = tostring(pairs_[i + 1])
    r.changed[pairs_[i]] = true
  end
end

-- One HSET with every changed field (nothing when none changed).
local function save(r)
  local args = {}
  for field in pairs(r.changed) do
    args[#args + 1] = field
    args[#args + 1] = r.fields[field]
  end
  if #args > 0 then redis.call('HSET', r.key, unpack(args)) end
  r.changed = {}
end

-- The request as it is now, as HGETALL would answer, without asking the server again.
local function flat_fields(r)
  local flat = {}
  for field, value in pairs(r.fields) do
    flat[#flat + 1] = field
    flat[#flat + 1] = value
  end
  return flat
end

-- The claimant owns the request from now on: fence + 1, a fresh lease, nothing sent yet, and the
-- service's lock when it is free (SET NX: the lock and the lease then expire together). Answers 1
-- when the lock was taken here, else 0 (the flow then asks for it as before). The caller saves.
local function grant_lease(r, owner, ttl, service_lock, id)
  local fence = (tonumber(r.fields.fence or '0') or 0) + 1
  put(r, 'fence', int(fence), 'leaseOwner', owner, 'leaseUntil', int(now_ms() + tonumber(ttl)))
  if r.fields.sending then
    redis.call('HDEL', r.key, 'sending')
    r.fields.sending = nil
  end
  if not service_lock then return 0 end
  if redis.call('SET', service_lock, id .. ':' .. int(fence), 'NX', 'PX', ttl) then return 1 end
  return 0
end

-- Appends one audit entry to the main stream and, with the same id, to the index stream of its
-- channel and service; both are trimmed by age (MINID). A stream's expiry is renewed only where
-- `renew` has a 1 at its place: each replica renews a stream's expiry (retention and a day) at
-- most once a day, not per entry. Renewing the index stream also (re)names its service in the
-- channel's set of services (the channel's history reads their streams), which expires alike.
-- A stream not due for renewal is written with NOMKSTREAM: should it be gone since it was renewed
-- (lost in a failover, deleted), it is made again with its expiry (and its service named), never
-- as a stream without one, which would be kept forever once its service goes quiet.
local function append_entry(streams, renew, minid, stream_ttl_ms, fields, services, service_id)
  local entry_id = '*'
  for i = 1, #streams do
    local due = string.sub(renew, i, i) == '1'
    local added = false
    if not due then
      added = redis.call('XADD', streams[i], 'NOMKSTREAM', 'MINID', '~', minid, entry_id, unpack(fields))
    end
    if added then
      entry_id = added
    else
      entry_id = redis.call('XADD', streams[i], 'MINID', '~', minid, entry_id, unpack(fields))
      redis.call('PEXPIRE', streams[i], stream_ttl_ms)
      if i == 2 then
        redis.call('SADD', services, service_id)
        redis.call('PEXPIRE', services, stream_ttl_ms)
      end
    end
  end
end

-- One audit entry about the request, with its current fence when it has one, in the main stream
-- and the index of its channel and service; an applied entry also carries the exact PATCH body
-- (drift attribution reads the applied entries of the main stream).
local function append_request_audit(streams, services, renew, minid, stream_ttl_ms, r, id, now, actor, action, summary, api_request_id, message)
  local about = r.fields
  local fields = {
    'at', now, 'action', action, 'changeId', id, 'actorId', actor,
    'channelId', about.channelId, 'serviceId', about.serviceId, 'serviceName', about.serviceName, 'summary', summary,
  }
  if about.fence then
    fields[#fields + 1] = 'fence'
    fields[#fields + 1] = about.fence
  end
  -- Every entry of a request of a named organization (ORGANIZATIONS_FILE) says which.
  if about.organization then
    fields[#fields + 1] = 'organization'
    fields[#fields + 1] = about.organization
  end
  if api_request_id ~= '' then
    fields[#fields + 1] = 'apiRequestId'
    fields[#fields + 1] = api_request_id
  end
  if message ~= '' then
    fields[#fields + 1] = 'message'
    fields[#fields + 1] = message
  end
  if action == 'applied' and about.update then
    fields[#fields + 1] = 'update'
    fields[#fields + 1] = about.update
  end
  append_entry(streams, renew, minid, stream_ttl_ms, fields, services, about.serviceId)
end

-- The lease fields of a request, and whether the given owner and fence hold it unexpired.
local function lease_held(request, owner, fence, now)
  local f = redis.call('HMGET', request, 'status', 'leaseOwner', 'fence', 'leaseUntil')
  return f[1] == 'applying' and f[2] == owner and f[3] == fence and (tonumber(f[4] or '0') or 0) > now
end
