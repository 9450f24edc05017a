-- Shared by acquire.lua and release.lua (prepended to each).
--
-- One lock is four keys that share a hash tag, so they live on one Redis
-- Cluster slot:
--   KEYS[1] lock     "<owner id>:<fencing token>", expires with the lease
--   KEYS[2] queue    sorted set of waiter ids, scored by arrival
--   KEYS[3] waiters  hash waiter id -> "<alive-until ms>:<ttl ms>"
--   KEYS[4] fence    last fencing token issued, kept a while after the lock is gone
local lock, queue, waiters, fence = KEYS[1], KEYS[2], KEYS[3], KEYS[4]

-- now_us reads the server clock once per script, and only if needed.
local clock_us
local function now_us()
  if not clock_us then
    local t = redis.call('TIME')
    clock_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
  end
  return clock_us
end

local function now_ms()
  return math.floor(now_us() / 1000)
end

-- holder returns the lock's owner id and token, or nil if it is free.
local function holder()
  local v = redis.call('GET', lock)
  if not v then
    return nil
  end
  local o, t = string.match(v, '^([^:]*):(%d+)$')
  return o, tonumber(t)
end

-- head returns the first queued waiter that is still alive (it re-announces
-- itself while it waits), dropping the dead ones in front of it.
local function head()
  while true do
    local w = redis.call('ZRANGE', queue, 0, 0)[1]
    if not w then
      return nil
    end
    local v = redis.call('HGET', waiters, w)
    if v and tonumber(string.match(v, '^(%d+):')) >= now_ms() then
      return w
    end
    redis.call('ZREM', queue, w)
    redis.call('HDEL', waiters, w)
  end
end

-- dequeue takes a waiter out of the queue.
local function dequeue(w)
  redis.call('ZREM', queue, w)
  redis.call('HDEL', waiters, w)
end

-- grant gives the lock to who for px ms with a new fencing token. Tokens are
-- max(server time in microseconds, last token + 1): they keep rising when
-- the fence key has expired, as long as the server clock does not step back.
local function grant(who, px, keep)
  local token = now_us()
  local s = string.format('%.0f', token)
  local last = redis.call('SET', fence, s, 'PX', keep, 'GET')
  if last and tonumber(last) >= token then
    token = tonumber(last) + 1
    s = string.format('%.0f', token)
    redis.call('SET', fence, s, 'PX', keep)
  end
  redis.call('SET', lock, who .. ':' .. s, 'PX', px)
  return token
end
