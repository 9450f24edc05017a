-- Acquire (or, with wait, queue for) the lock.
-- ARGV: 1 owner id, 2 ttl ms, 3 fence keep ms, 4 notification channel;
-- then, only to queue: 5 "1" (queue behind a holder), 6 waiter lifetime ms,
-- 7 queue score (arrival time in µs; "" for this server's clock).
-- Returns {1, token (a string of digits), 0, 0} when id holds the lock (now
-- or by a hand-off that this call claims), else {0, 0, ms until the lock expires or 0 if unknown,
-- 1 if this call put id in the queue}.
local id, ttl, keep = ARGV[1], ARGV[2], ARGV[3]

-- Free, and nobody in line: the common case, one check and the grant.
if redis.call('EXISTS', lock, queue) == 0 then
  return {1, grant(id, ttl, keep, false), 0, 0}
end

--#include queue.lua

local v = redis.call('GET', lock)
local owner, token, marks = parse(v)
if owner == id then
  -- Handed to us by a release: claim it for our full ttl.
  redis.call('PEXPIRE', lock, ttl)
  return {1, token, 0, 0}
end

if not owner then
  local h = head()
  if h == nil or h == id then
    if h == id then
      dequeue(id)
    end
    return {1, grant(id, ttl, keep, redis.call('EXISTS', queue) == 1), 0, 0}
  end
  -- Free, but a live waiter is first in line (the holder expired instead of
  -- releasing): wake it so it takes the lock now. No barging past it.
  redis.call('PUBLISH', ARGV[4], h)
end

if ARGV[5] ~= '1' then
  return {0, 0, 0, 0}
end
local alive = tonumber(ARGV[6])
redis.call('HSET', waiters, id, string.format('%.0f:%s', now_ms() + alive, ttl))
local queued = redis.call('ZADD', queue, 'NX', tonumber(ARGV[7]) or now_us(), id)
redis.call('PEXPIRE', queue, alive * 2)
redis.call('PEXPIRE', waiters, alive * 2)
if owner then
  mark(v, marks)
end
local pttl = redis.call('PTTL', lock)
if pttl < 0 then
  pttl = 0
end
return {0, 0, pttl, queued}
