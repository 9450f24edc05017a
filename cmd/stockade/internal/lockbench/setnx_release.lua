-- Compare-and-delete: remove the lock only if it still holds our token, so a
-- late release never frees a lock that expired and was taken by someone else.
-- KEYS[1] lock key; ARGV[1] token. Returns 1 if deleted, 0 if not ours.
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0
