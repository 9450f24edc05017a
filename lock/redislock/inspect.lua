-- Read one key's state in every kind, for an operator. It writes nothing.
-- KEYS: the lock's 1 lock, 2 queue and 3 waiters (see internal/redisq's
-- common.lua); the semaphore's 4 state, 5 holders and 6 queue, and the
-- read-write lock's 7, 8 and 9 (see weighted_common.lua).
-- Returns a reply per kind, lock, semaphore, read-write lock: {} if nobody
-- holds or waits for the key in that kind, else {limit of permits (0 for a
-- lock), last fencing token ("0" if none), holders, waiters}. Holders are
-- triples of handle, permits (1 for a lock) and ms the lease has left;
-- waiters are handles, first in line first. Leases that ended and waiters
-- that stopped announcing themselves do not count. A handle names an owner
-- without revealing its id, which proves ownership: the first 16 hex
-- digits of its SHA-1, as redisq.Handle computes it.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local function handle(id)
  return string.sub(redis.sha1hex(id), 1, 16)
end

-- live returns the handles of the members of queue whose field in hash
-- says, through pattern, that they were alive until now or later.
local function live(queue, hash, pattern)
  local out = {}
  for _, w in ipairs(redis.call('ZRANGE', queue, 0, -1)) do
    local alive = string.match(redis.call('HGET', hash, w) or '', pattern)
    if alive and tonumber(alive) >= now then
      out[#out + 1] = handle(w)
    end
  end
  return out
end

local function lock(key, queue, waiters)
  local owner, token = string.match(redis.call('GET', key) or '', '^([^:]*):(%d+)')
  local holders = {}
  if owner and owner ~= '' then
    holders = {handle(owner), 1, math.max(redis.call('PTTL', key), 0)}
  end
  local waiting = live(queue, waiters, '^(%d+):')
  if #holders == 0 and #waiting == 0 then
    return {}
  end
  return {0, token, holders, waiting}
end

local function weighted(state, holders, queue)
  local held = {}
  local h = redis.call('ZRANGEBYSCORE', holders, '(' .. now, '+inf', 'WITHSCORES')
  for i = 1, #h, 2 do
    local who, k = string.match(h[i], '^(.*):(%d+)$')
    held[#held + 1] = handle(who)
    held[#held + 1] = tonumber(k)
    held[#held + 1] = tonumber(h[i + 1]) - now
  end
  local waiting = live(queue, state, '^%d+:(%d+):')
  if #held == 0 and #waiting == 0 then
    return {}
  end
  local v = redis.call('HMGET', state, 'limit', 'token')
  return {tonumber(v[1]) or 0, v[2] or '0', held, waiting}
end

return {
  lock(KEYS[1], KEYS[2], KEYS[3]),
  weighted(KEYS[4], KEYS[5], KEYS[6]),
  weighted(KEYS[7], KEYS[8], KEYS[9]),
}
