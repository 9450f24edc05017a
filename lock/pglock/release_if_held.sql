-- Release advisory lock $1 (bigint) if this session holds it, quietly.
-- Used to clean up after a cancelled or failed wait, which may have been
-- granted the lock just as it gave up.
SELECT pg_advisory_unlock($1)
FROM pg_locks
WHERE locktype = 'advisory'
  AND pid = pg_backend_pid()
  AND granted
  AND classid = (($1::bigint >> 32) & 4294967295)::oid
  AND objid = ($1::bigint & 4294967295)::oid
  AND objsubid = 1;
