-- The helpers of the scripts of semaphores and read-write locks, included
-- after their fast paths (see weighted_common.lua).

-- granted lists the waiters this call handed permits to, each followed by
-- the value its message carries; the release script returns them, so that
-- its caller can wake those of its own process without waiting for their
-- messages.
local granted = {}

-- keep makes the keys live at least ms more, extending them to twice
-- that so that most calls find them long enough. created is a key this
-- call created, which has no expiry yet, or nil.
local function keep(ms, created)
  if now + ms > horizon then
    horizon = now + 2 * ms
    redis.call('HSET', state, 'horizon', horizon)
    for _, k in ipairs(KEYS) do
      redis.call('PEXPIREAT', k, horizon)
    end
  elseif created then
    redis.call('PEXPIREAT', created, horizon)
  end
end

-- next_token returns a fencing token, a string of digits: the server time
-- in microseconds, or one more than the last token if that is not smaller.
-- A key's grants are at least a microsecond apart, so tokens keep rising
-- after the state hash has expired, unless the server clock steps back.
local function next_token()
  local token = time[1] .. string.rep('0', 6 - #time[2]) .. time[2]
  local last = redis.call('HGET', state, 'token')
  -- Equal lengths compare as numbers.
  if last and (#last > #token or (#last == #token and last >= token)) then
    token = string.format('%.0f', tonumber(last) + 1)
  end
  redis.call('HSET', state, 'token', token)
  return token
end

-- grant makes who a holder of k permits for px ms and returns its fencing
-- token, "0" unless exclusive.
local function grant(who, k, px, exclusive)
  local token = '0'
  if exclusive then
    token = next_token()
  end
  local first = used == 0 -- then holders is created
  redis.call('ZADD', holders, now + px, who .. ':' .. k)
  used = redis.call('HINCRBY', state, 'used', k)
  if first then
    keep(px, holders)
  else
    keep(px)
  end
  return token
end

-- prune drops the holders whose lease has ended, and gives their permits
-- back.
local function prune()
  for _, m in ipairs(redis.call('ZRANGEBYSCORE', holders, '-inf', now)) do
    local who, k = string.match(m, '^(.*):(%d+)$')
    redis.call('ZREM', holders, m)
    redis.call('HDEL', state, who) -- a hand-off never claimed
    used = redis.call('HINCRBY', state, 'used', -tonumber(k))
    if who == id then
      entry = nil
    end
  end
end

-- admit grants the waiters at the front of the queue while the first one's
-- permits fit, dropping the dead ones in its way, and publishes each
-- grant on the channel: "<owner id>:<token>", where the token of a lease
-- without one is 1, so that a message always says the permits were handed
-- over. The grant lasts the waiter timeout (or the waiter's ttl, if
-- shorter), so that a waiter that died unseen holds up the queue no
-- longer; a live one extends it to its ttl. It returns true if the queue
-- is then empty.
local function admit()
  while true do
    local w = redis.call('ZRANGE', queue, 0, 0)[1]
    if not w then
      return true
    end
    local k, alive, ttl, x = string.match(redis.call('HGET', state, w) or '', '^(%d+):(%d+):(%d+):(%d)$')
    local live = k and tonumber(alive) >= now
    if live and used + tonumber(k) > (limit or 0) then
      return false
    end
    redis.call('ZREM', queue, w)
    if live then
      local token = grant(w, k, math.min(tonumber(ttl), waiter_timeout), x == '1')
      redis.call('HSET', state, w, '=' .. token)
      if w == id then
        entry = '=' .. token
      end
      if token == '0' then
        token = '1'
      end
      redis.call('PUBLISH', channel, w .. ':' .. token)
      granted[#granted + 1] = w
      granted[#granted + 1] = token
    else
      redis.call('HDEL', state, w) -- a waiter that stopped announcing itself
      if w == id then
        entry = nil
      end
    end
  end
end
