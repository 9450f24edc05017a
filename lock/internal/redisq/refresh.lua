-- Extend the lock to ARGV[2] ms if ARGV[1] holds it, and keep the fence key
-- for ARGV[3] ms. With ARGV[4] = "1", a lock key that is missing (a server
-- that restarted empty) is re-created for ARGV[1] with token ARGV[5].
-- KEYS: 1 lock, 2 fence. Returns 1 if held (or re-created), 0 if not.
local v = redis.call('GET', KEYS[1])
if not v and ARGV[4] == '1' then
  -- Marked: the restarted server's queue is unknown here.
  redis.call('SET', KEYS[1], ARGV[1] .. ':' .. ARGV[5] .. ':q', 'PX', ARGV[2])
  return 1
end
if not v or string.match(v, '^([^:]*):') ~= ARGV[1] then
  return 0
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
