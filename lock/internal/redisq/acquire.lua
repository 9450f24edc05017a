-- Acquire (or, with wait, queue for) the lock.
-- ARGV: 1 owner id, 2 ttl ms, 3 notification channel; 4 "1" to queue
-- behind a holder, and then 5 waiter lifetime ms, 6 queue score (arrival
-- time in µs; "" for this server's clock); 7 the caller's deadline in Unix
-- ms, or "" for none.
-- Returns the token, a string of digits, when id holds the lock (now or by
-- a hand-off that this call claims), else {ms until the lock expires or 0
-- if unknown, 1 if this call put id in the queue}. A string costs Redis less
-- to return than a table, so the common case, a grant, returns one.
local id, ttl = ARGV[1], ARGV[2]

-- A call that reaches the server after its caller gave up (the server was
-- paused, or the reply was held up) does nothing: a grant or a place in
-- line for nobody would hold up everyone else until it expired, whenever
-- the caller's clean-up ran first.
local deadline = tonumber(ARGV[7])
if deadline then
  local t = redis.call('TIME')
  if tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) > deadline then
    return {0, 0}
  end
end

local v = redis.call('GET', KEYS[1])

-- The common case, before the helpers are built: released (":<token>": no
-- owner, no mark, so nobody in line) and counted tokens. The grant is the
-- next token, as grant below gives it.
if v and not clocked then
  local last = string.match(v, '^:(%d+)$')
  if last then
    local token = string.format('%.0f', tonumber(last) + 1)
    redis.call('SET', KEYS[1], id .. ':' .. token, 'PX', ttl)
    return token
  end
end

--#include common.lua
local owner, token, marks = parse(v)

-- Released, and nobody in line, with clocked tokens.
if owner == '' and marks == '' then
  return grant(id, token, ttl, false)
end
-- Never used, or gone: the queue says whether anybody is in line.
if not v and redis.call('EXISTS', queue) == 0 then
  return grant(id, nil, ttl, false)
end

--#include queue.lua

if owner == id then
  -- Handed to us by a release: claim it for our full ttl.
  redis.call('PEXPIRE', lock, ttl)
  return token
end

local held = owner and owner ~= ''
if not held then
  local h = head()
  if h == nil or h == id then
    if h == id then
      dequeue(id)
    end
    return grant(id, token, ttl, redis.call('EXISTS', queue) == 1)
  end
  -- Free, but a live waiter is first in line (the holder expired instead of
  -- releasing, or this is that waiter's wake-up in flight): wake it so it
  -- takes the lock now. No barging past it.
  redis.call('PUBLISH', ARGV[3], h)
end

if ARGV[4] ~= '1' then
  return {0, 0}
end
local alive = tonumber(ARGV[5])
redis.call('HSET', waiters, id, string.format('%.0f:%s', now_ms() + alive, ttl))
local queued = redis.call('ZADD', queue, 'NX', tonumber(ARGV[6]) or now_us(), id)
redis.call('PEXPIRE', queue, alive * 2)
redis.call('PEXPIRE', waiters, alive * 2)
if v then
  mark(v, marks)
end
local pttl = 0
if held then
  pttl = math.max(redis.call('PTTL', lock), 0)
end
return {pttl, queued}
