-- Release the lock if ARGV[1] holds it, handing it straight to the first
-- live waiter; otherwise take ARGV[1] out of the queue if it is waiting.
--
-- With a queue score in ARGV[5] the owner yields instead: it goes back in
-- the queue at that score (with ARGV[6] ms to live and ttl ARGV[7]) and
-- keeps the lock if that makes it first in line; a waiter that is not the
-- owner then keeps its place. Redlock yields the nodes it won in an attempt
-- that fell short of a majority, so every node keeps serving the earliest
-- waiter.
--
-- ARGV: 1 owner id, 2 how long a released lock keeps its token, ms, 3
-- notification channel, 4 longest time a handed-off lock waits for its new
-- owner to claim it, ms.
-- Returns 1 if ARGV[1] held the lock and freed it, {1, new owner id, its
-- token} if it handed the lock to a waiter, 2 if it yielded and kept it, 0
-- if it did not hold it. The caller's process may host the new owner: it
-- can wake it on this reply without waiting for the message.
local id, keep, channel, claim = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local score = tonumber(ARGV[5])
local v = redis.call('GET', KEYS[1])

-- The common case, before the helpers are built: held by id and unmarked
-- ("<id>:<token>", so nobody queued), and not yielding. The key keeps the
-- token for the next grant, as free below writes it.
if v and not score then
  local owner, token = string.match(v, '^([^:]*):(%d+)$')
  if owner == id then
    redis.call('SET', KEYS[1], ':' .. token, 'PX', keep)
    return 1
  end
end

--#include common.lua
local owner, token, marks = parse(v)

--#include queue.lua

if owner ~= id then
  if not score then
    dequeue(id)
  end
  return 0
end

if score then
  redis.call('HSET', waiters, id, string.format('%.0f:%s', now_ms() + tonumber(ARGV[6]), ARGV[7]))
  redis.call('ZADD', queue, 'NX', score, id)
end
local h, ttl = pop()
if h == id then
  mark(v, marks)
  return 2
end
if not h then
  free(token, keep)
  return 1
end
-- The message tells the new owner its token. It extends the lock to its
-- own ttl when the message reaches it; until then a short expiry keeps a
-- waiter that died unseen from holding up the queue. The queue may hold
-- more waiters: mark it.
local given = grant(h, token, math.min(tonumber(ttl), claim), true)
redis.call('PUBLISH', channel, h .. ':' .. given)
return {1, h, given}
