-- Break every lease on the key, for an operator: drop its holders, whoever
-- they are, as if their leases had ended, and grant the waiters at the
-- front that then fit, as a release does. The next exclusive lease's token
-- is larger than every broken one's: next_token continues from the last.
-- ARGV (after the common four, whose owner id and n go unused): 5 the
-- channel on which a broken holder's Locker learns of it, told
-- "<holder handle>:<state key>".
-- Returns {} if nobody held the key, else {limit, last token, holders,
-- waiters} before the break, as inspect.lua reads them, then for each
-- waiter granted its id and the value of its message.

--#include weighted_helpers.lua

local function handle(who)
  return string.sub(redis.sha1hex(who), 1, 16)
end

read_clock()
local v = redis.call('HMGET', state, 'limit', 'used', 'horizon', 'token')
limit, used, horizon = tonumber(v[1]), tonumber(v[2]) or 0, tonumber(v[3]) or 0
prune()
local h = redis.call('ZRANGE', holders, 0, -1, 'WITHSCORES')
if #h == 0 then
  return {}
end

local out = {limit or 0, v[4] or '0', {}, {}}
for _, w in ipairs(redis.call('ZRANGE', queue, 0, -1)) do
  local alive = string.match(redis.call('HGET', state, w) or '', '^%d+:(%d+):')
  if alive and tonumber(alive) >= now then
    table.insert(out[4], handle(w))
  end
end
for i = 1, #h, 2 do
  local who, k = string.match(h[i], '^(.*):(%d+)$')
  redis.call('ZREM', holders, h[i])
  redis.call('HDEL', state, who) -- the mark of permits handed over, not yet claimed
  used = redis.call('HINCRBY', state, 'used', -tonumber(k))
  local name = handle(who)
  redis.call('PUBLISH', ARGV[5], name .. ':' .. state)
  table.insert(out[3], name)
  table.insert(out[3], tonumber(k))
  table.insert(out[3], tonumber(h[i + 1]) - now)
end

if admit() and used <= 0 then
  forget()
end
for _, g in ipairs(granted) do
  out[#out + 1] = g
end
return out
