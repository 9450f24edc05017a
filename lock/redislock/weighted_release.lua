-- Give id's n permits back if it holds them, and grant the waiters that
-- then fit. With ARGV[5] = "1", id has waited: take it out of the queue if
-- it is still there, and drop its field (a waiter's, or the mark of
-- permits handed to it).
-- Returns {1 if id held the permits else 0, then for each waiter granted
-- its id and the value of its message}.
local held = redis.call('ZREM', holders, member)
if held == 1 then
  used = redis.call('HINCRBY', state, 'used', -n)
end
if ARGV[5] == '1' then
  redis.call('HDEL', state, id)
  redis.call('ZREM', queue, id)
end

-- The common case: nobody in line, so nobody to grant.
if redis.call('EXISTS', queue) == 0 then
  if held == 1 and used <= 0 then
    forget()
  end
  return {held}
end

--#include weighted_helpers.lua

read_clock()
local v = redis.call('HMGET', state, 'limit', 'used', 'horizon')
limit, used, horizon = tonumber(v[1]), tonumber(v[2]) or 0, tonumber(v[3]) or 0
prune()
if admit() and used <= 0 then
  forget()
end
return {held, unpack(granted)}
