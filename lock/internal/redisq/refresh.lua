-- Extend the lock to ARGV[2] ms if ARGV[1] holds it, and keep the fence key
-- for ARGV[3] ms. With ARGV[4] = "1", a lock key that is missing (a server
-- that restarted empty) is re-created for ARGV[1] with token ARGV[5].
-- KEYS: 1 lock, 2 fence. Returns 1 if held (or re-created), 0 if not.
local owner = redis.call('HGET', KEYS[1], 'o')
if not owner and ARGV[4] == '1' then
  redis.call('HSET', KEYS[1], 'o', ARGV[1], 't', ARGV[5])
  owner = ARGV[1]
end
if owner ~= ARGV[1] then
  return 0
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
