-- Extend the lock to ARGV[2] ms if ARGV[1] holds it. With ARGV[3] = "1", a
-- lock key that is missing (a server that restarted empty) is re-created
-- for ARGV[1] with token ARGV[4].
-- KEYS: 1 lock. Returns 1 if held (or re-created), 0 if not.
local v = redis.call('GET', KEYS[1])
if not v and ARGV[3] == '1' then
  -- Marked: the restarted server's queue is unknown here.
  redis.call('SET', KEYS[1], ARGV[1] .. ':' .. ARGV[4] .. ':q', 'PX', ARGV[2])
  return 1
end
if not v or string.match(v, '^([^:]*):') ~= ARGV[1] then
  return 0
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
