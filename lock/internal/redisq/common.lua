-- Shared by acquire.lua and release.lua (prepended to each).
--
-- One lock is four keys that share a hash tag, so they live on one Redis
-- Cluster slot:
--   KEYS[1] lock     hash {o = owner id, t = fencing token}, expires with the lease
--   KEYS[2] queue    sorted set of waiter ids, scored by arrival
--   KEYS[3] waiters  hash waiter id -> "<alive-until ms>:<ttl ms>"
--   KEYS[4] fence    last fencing token issued, kept a while after the lock is gone
local lock, queue, waiters, fence = KEYS[1], KEYS[2], KEYS[3], KEYS[4]

local clock = redis.call('TIME')
local now_us = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local now_ms = math.floor(now_us / 1000)

-- head returns the first queued waiter that is still alive (it re-announces
-- itself while it waits), dropping the dead ones in front of it.
local function head()
  while true do
    local w = redis.call('ZRANGE', queue, 0, 0)[1]
    if not w then
      return nil
    end
    local v = redis.call('HGET', waiters, w)
    if v and tonumber(string.match(v, '^(%d+):')) >= now_ms then
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
  local token = math.max(now_us, tonumber(redis.call('GET', fence) or '0') + 1)
  local s = string.format('%.0f', token)
  redis.call('SET', fence, s, 'PX', keep)
  redis.call('HSET', lock, 'o', who, 't', s)
  redis.call('PEXPIRE', lock, px)
  return token
end
