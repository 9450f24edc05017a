-- Runs the calls of one pipeline in one script: a script run costs Redis
-- more than the few commands of an uncontended acquire or release, and a
-- batch pays it once. The ops table (built before this) holds the
-- acquire, release and refresh scripts as functions of (KEYS, ARGV).
--
-- ARGV: 1 the number of calls; then, for each call: its op ("a", "r" or
-- "f"), its key count, its argument count, and its arguments. KEYS: every
-- call's keys, in order.
-- Returns each call's reply in order; a call that failed has its error in
-- its place, and the others still run.
local out = {}
local k, a = 1, 2
for i = 1, tonumber(ARGV[1]) do
  local op, nk, na = ops[ARGV[a]], tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  local keys = {unpack(KEYS, k, k + nk - 1)}
  local args = {unpack(ARGV, a + 3, a + 2 + na)}
  k, a = k + nk, a + 3 + na
  local ok, res = pcall(op, keys, args)
  if ok then
    out[i] = res
  elseif type(res) == 'table' and res.err then
    out[i] = res
  else
    out[i] = {err = tostring(res)}
  end
end
return out
