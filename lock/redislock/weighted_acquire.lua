-- Take n permits (or, with wait, queue for them), or claim the permits a
-- release handed to id.
-- ARGV (after the common four): 5 the key's limit, 6 ttl ms, 7 "1" for an
-- exclusive lease (which carries a fencing token), 8 "1" to queue when the
-- permits are not free, 9 the caller's deadline in Unix ms, or "" for none.
-- Returns {1, token} when id holds the permits (token "0" unless
-- exclusive), {0, ms until the first holder's lease ends or 0} when it
-- does not, or {-1, the key's limit} when the key has a limit other than
-- ARGV[5].
local want, ttl = tonumber(ARGV[5]), tonumber(ARGV[6])
local exclusive, wait = ARGV[7] == '1', ARGV[8] == '1'

read_clock()
-- A call that reaches the server after its caller gave up (the server was
-- paused, or the request held up) does nothing: permits or a place in line
-- for nobody would hold up everyone else until they expired.
local deadline = tonumber(ARGV[9])
if deadline and now > deadline then
  return {0, 0}
end

local v = redis.call('HMGET', state, 'limit', 'used', 'horizon', id)
limit, used, horizon, entry = tonumber(v[1]), tonumber(v[2]) or 0, tonumber(v[3]) or 0, v[4] or nil

if not entry and limit == want then
  local line = redis.call('EXISTS', queue) == 1
  -- The common case: a new entry whose permits fit beside other holders
  -- (so the keys exist, and an exclusive lease never fits), with nobody
  -- in line, within the keys' lifetime. It is what grant does. Holders
  -- whose lease has ended are pruned only when permits do not fit, as
  -- they are counted until then.
  if not line and used > 0 and used + n <= want and now + ttl <= horizon then
    redis.call('ZADD', holders, now + ttl, member)
    redis.call('HINCRBY', state, 'used', n)
    return {1, '0'}
  end
  -- A new waiter behind others: it queues at the back. Those ahead of it
  -- re-check on their own, and prune and admit as they do.
  if line and wait and now + waiter_timeout <= horizon then
    announce(ttl, exclusive, true)
    return {0, wait_hint()}
  end
end

--#include weighted_helpers.lua

prune()
local queue_empty = admit()
if limit and queue_empty and used <= 0 then
  forget()
end
if limit and limit ~= want then
  return {-1, limit}
end

-- Handed to us, by a release or by admit above: claim it for the full
-- ttl. (A hand-off whose time ran out has been pruned, its mark too.)
if entry and string.sub(entry, 1, 1) == '=' then
  redis.call('HDEL', state, id)
  redis.call('ZADD', holders, 'XX', now + ttl, member)
  keep(ttl)
  return {1, string.sub(entry, 2)}
end

if not entry then
  if not limit then
    limit = want
    redis.call('HSET', state, 'limit', want)
  end
  if queue_empty and used + n <= want then
    return {1, grant(id, n, ttl, exclusive)}
  end
  if not wait then
    return {0, wait_hint()}
  end
end

-- Queued, or queueing: announce that id is alive, and keep its place. A
-- waiter whose entry was dropped (it failed to announce itself in time)
-- queues again at the back.
announce(ttl, exclusive, not entry)
if queue_empty then
  keep(waiter_timeout, queue)
else
  keep(waiter_timeout)
end
return {0, wait_hint()}
