-- Extend id's lease to ARGV[5] ms if it still holds its permits.
-- Returns 1 if it does, 0 if not.

--#include weighted_helpers.lua

read_clock()
local expires = redis.call('ZSCORE', holders, member)
if not expires or tonumber(expires) <= now then
  return 0
end
local ttl = tonumber(ARGV[5])
redis.call('ZADD', holders, 'XX', now + ttl, member)
horizon = tonumber(redis.call('HGET', state, 'horizon')) or 0
keep(ttl)
return 1
