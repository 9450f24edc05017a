-- Shared by acquire.lua and release.lua, included in each after its fast
-- path, so that a call that takes it does not build these helpers. A line
-- before each script sets clocked (see grant).
--
-- One lock is three keys that share a hash tag, so they live on one Redis
-- Cluster slot:
--   KEYS[1] lock     "<owner id>:<fencing token>" while held, expiring with
--                    the lease; ":q" follows while the queue may hold
--                    waiters. Once released, ":<token>" (no owner), kept
--                    ARGV keep ms so that the next grant continues from it.
--   KEYS[2] queue    sorted set of waiter ids, scored by arrival
--   KEYS[3] waiters  hash waiter id -> "<alive-until ms>:<ttl ms>"
--
-- The ":q" mark lets a release and an acquire that find none skip the
-- queue: every path that queues a waiter behind a holder, or behind a free
-- lock whose first waiter has not taken it yet, marks the lock, and every
-- hand-off marks the new holder's. A mark on a lock with an empty queue
-- only costs a look at the queue.
local lock, queue, waiters = KEYS[1], KEYS[2], KEYS[3]

-- clock reads the server clock once per script, and only if needed, as
-- {seconds, microseconds} strings.
local time
local function clock()
  if not time then
    time = redis.call('TIME')
  end
  return time
end

-- parse splits a lock value into owner id ("" once released), token and
-- marks ("" or ":q"); nil, nil, "" for a missing key.
local function parse(v)
  if not v then
    return nil, nil, ''
  end
  return string.match(v, '^([^:]*):(%d+)(.*)$')
end

-- free releases the lock, keeping its token (":<token>") for keep ms for
-- the next grant.
local function free(token, keep)
  redis.call('SET', lock, ':' .. token, 'PX', keep)
end

-- grant gives the lock to who for px ms, marked if queued is true, and
-- returns its fencing token, a string of digits: last + 1, where last is
-- the token the lock key holds. When the key has gone, or when tokens are
-- clocked, the token is at least the server time in microseconds.
--
-- Grants on one key are at least a microsecond apart (each is a script on
-- Redis's one thread), so a count that started from the clock never
-- passes it, and the clock carries the count on once the key has expired:
-- tokens keep rising unless the server clock steps back. Clocked tokens
-- of different servers rise together.
local function grant(who, last, px, queued)
  local token
  if last and not clocked then
    token = string.format('%.0f', tonumber(last) + 1)
  else
    local t = clock()
    token = t[1] .. string.rep('0', 6 - #t[2]) .. t[2]
    -- Equal lengths compare as numbers.
    if last and (#last > #token or (#last == #token and last >= token)) then
      token = string.format('%.0f', tonumber(last) + 1)
    end
  end
  local v = who .. ':' .. token
  if queued then
    v = v .. ':q'
  end
  redis.call('SET', lock, v, 'PX', px)
  return token
end
