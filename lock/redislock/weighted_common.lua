-- Shared by the scripts of semaphores and read-write locks, which each
-- start with it. One key of either kind is three Redis keys that share a
-- hash tag, so they live on one Redis Cluster slot:
--   KEYS[1] state    hash: "limit", the key's limit of permits, while
--                    anybody holds or waits; "used", the permits held;
--                    "seq", the last arrival number given; "token", the
--                    last fencing token given; "horizon", when the keys
--                    expire (Unix ms); and a field per waiter, named by its
--                    owner id: "<n>:<alive until ms>:<ttl ms>:<1 if
--                    exclusive, else 0>" while it waits, "=<token>" once
--                    it has been handed its permits and until it claims
--                    them
--   KEYS[2] holders  sorted set of "<owner id>:<n>", scored by the end of
--                    the holder's lease (Unix ms)
--   KEYS[3] queue    sorted set of waiting owner ids, scored by arrival
-- Owner ids are upper-case (crypto/rand.Text), so they never clash with the
-- lower-case field names.
--
-- Holders are a prefix of the arrival order: a waiter is granted only when
-- it is first in line and its permits fit, so every entry that arrived
-- before it holds. Holders and waiters both expire: a holder at the end of
-- its lease, a waiter WaiterTimeout after it last announced itself. The
-- keys expire together, some time after their last entry would.
--
-- ARGV, in every script: 1 owner id, 2 n, the permits the owner asks or
-- holds, 3 notification channel, 4 the waiter timeout, ms: how long a
-- waiter keeps its place without announcing itself, and how long permits
-- handed to a waiter wait to be claimed.
--
-- The scripts call Redis as little as they can: each call costs the server
-- more than the rest of the script. The common cases return before the
-- helpers in weighted_helpers.lua are included: Lua builds a script's
-- functions as it runs their definitions, and a call that returns early
-- does not pay for them.
local state, holders, queue = KEYS[1], KEYS[2], KEYS[3]
local id, n, channel, waiter_timeout = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
local member = id .. ':' .. ARGV[2]

-- The server clock, read by read_clock: {seconds, microseconds} strings,
-- and in Unix ms.
local time, now

local function read_clock()
  time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

-- The fields of the state hash, as the scripts read them and the helpers
-- keep them; entry is id's field.
local limit, used, horizon, entry = nil, 0, 0, nil

-- forget forgets the limit of a key that nobody holds or waits for, as if
-- it had never been used; the last token stays until the keys expire.
local function forget()
  redis.call('HDEL', state, 'limit', 'used', 'seq')
  limit = nil
end

-- wait_hint is how long until the first holder's lease ends, ms, or 0 if
-- nobody holds.
local function wait_hint()
  local first = redis.call('ZRANGE', holders, 0, 0, 'WITHSCORES')[2]
  if not first then
    return 0
  end
  return math.max(tonumber(first) - now, 1)
end

-- announce records that id waits, alive for the waiter timeout, asking n
-- permits for ttl ms; with new, it queues id at the back of the line.
local function announce(ttl, exclusive, new)
  if new then
    redis.call('ZADD', queue, redis.call('HINCRBY', state, 'seq', 1), id)
  end
  local x = '0'
  if exclusive then
    x = '1'
  end
  redis.call('HSET', state, id, string.format('%d:%.0f:%d:%s', n, now + waiter_timeout, ttl, x))
end
