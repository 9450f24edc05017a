-- Shared by acquire.lua and release.lua (prepended to each).
--
-- One lock is four keys that share a hash tag, so they live on one Redis
-- Cluster slot:
--   KEYS[1] lock     "<owner id>:<fencing token>", expires with the lease;
--                    ":q" follows while the queue may hold waiters
--   KEYS[2] queue    sorted set of waiter ids, scored by arrival
--   KEYS[3] waiters  hash waiter id -> "<alive-until ms>:<ttl ms>"
--   KEYS[4] fence    last fencing token issued, kept a while after the lock is gone
--
-- The ":q" mark lets a release that finds none skip the queue: every path
-- that queues a waiter behind a holder marks the lock, and every hand-off
-- marks the new holder's. A mark on a lock with an empty queue only costs
-- its release a look at the queue.
local lock, queue, waiters, fence = KEYS[1], KEYS[2], KEYS[3], KEYS[4]

-- clock reads the server clock once per script, and only if needed, as
-- {seconds, microseconds} strings.
local time
local function clock()
  if not time then
    time = redis.call('TIME')
  end
  return time
end

-- parse splits a lock value into owner id, token and marks ("" or ":q").
local function parse(v)
  if not v then
    return nil, nil, ''
  end
  return string.match(v, '^([^:]*):(%d+)(.*)$')
end

-- grant gives the lock to who for px ms with a new fencing token, marked
-- if queued is true, and returns the token. Tokens are max(server time in
-- microseconds, last token + 1): they keep rising when the fence key has
-- expired, as long as the server clock does not step back. They are
-- handled as strings of digits, which compare as numbers when their
-- lengths are equal; arithmetic is needed only when the clock has not
-- passed the last token.
local function grant(who, px, keep, queued)
  local t = clock()
  local token = t[1] .. string.rep('0', 6 - #t[2]) .. t[2]
  local last = redis.call('SET', fence, token, 'PX', keep, 'GET')
  if last and (#last > #token or (#last == #token and last >= token)) then
    token = string.format('%.0f', tonumber(last) + 1)
    redis.call('SET', fence, token, 'PX', keep)
  end
  local v = who .. ':' .. token
  if queued then
    v = v .. ':q'
  end
  redis.call('SET', lock, v, 'PX', px)
  return token
end
