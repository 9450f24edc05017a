-- Break the lock for an operator: drop its holder, whoever it is, as if
-- its lease had ended, and hand the lock to the first live waiter as a
-- release does. The next grant's token is one more than the broken
-- holder's, as after a release.
-- ARGV: 1 how long a freed lock keeps its token, ms, 2 the key's
-- notification channel, 3 longest time a handed-off lock waits for its new
-- owner to claim it, ms, 4 the channel on which the broken holder's Locker
-- learns of it.
-- Returns {} if nobody held the lock, else {holder, token, ms its lease had
-- left, new owner or "", its token or "", then the live waiters before the
-- break, first in line first}. Holders and waiters are named by handles
-- (see handle), never by their owner ids, which prove ownership. The
-- broken holder's Locker is told "<holder handle>:<lock key>" on ARGV[4].
local keep, channel, claim, notices = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]

--#include common.lua
local owner, token = parse(redis.call('GET', KEYS[1]))
if not owner or owner == '' then
  return {}
end

--#include queue.lua

-- handle names an owner without revealing its id: the first 16 hex
-- digits of the id's SHA-1, as redisq.Handle computes it.
local function handle(who)
  return string.sub(redis.sha1hex(who), 1, 16)
end

local out = {handle(owner), token, math.max(redis.call('PTTL', lock), 0), '', ''}
for _, w in ipairs(redis.call('ZRANGE', queue, 0, -1)) do
  local v = redis.call('HGET', waiters, w)
  if v and tonumber(string.match(v, '^(%d+):')) >= now_ms() then
    out[#out + 1] = handle(w)
  end
end
redis.call('PUBLISH', notices, out[1] .. ':' .. lock)

local h, ttl = pop()
if not h then
  free(token, keep)
  return out
end
-- As release.lua hands it over: the message tells the new owner its token.
local given = grant(h, token, math.min(tonumber(ttl), claim), true)
redis.call('PUBLISH', channel, h .. ':' .. given)
out[4], out[5] = h, given
return out
