-- Queue helpers, included by acquire.lua and release.lua after their fast
-- paths, so that a call that takes a fast path does not build them.

-- now_us is the server time in microseconds, a number.
local function now_us()
  local t = clock()
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end

local function now_ms()
  return math.floor(now_us() / 1000)
end

-- mark notes on the held lock, whose value is v and marks m, that waiters
-- may be queued.
local function mark(v, m)
  if m == '' then
    redis.call('SET', lock, v .. ':q', 'KEEPTTL')
  end
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

-- pop takes the first live waiter out of the queue and returns its id and
-- ttl (a string of digits), dropping the dead ones in front of it; nil if
-- nobody is left.
local function pop()
  while true do
    local w = redis.call('ZPOPMIN', queue)[1]
    if not w then
      return nil
    end
    local v = redis.call('HGET', waiters, w)
    redis.call('HDEL', waiters, w)
    if v then
      local alive, ttl = string.match(v, '^(%d+):(%d+)$')
      if tonumber(alive) >= now_ms() then
        return w, ttl
      end
    end
  end
end

-- dequeue takes a waiter out of the queue.
local function dequeue(w)
  redis.call('ZREM', queue, w)
  redis.call('HDEL', waiters, w)
end
