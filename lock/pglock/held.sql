-- Whether this session holds advisory lock $1 (bigint). pg_locks shows a
-- bigint advisory lock as classid = high 32 bits, objid = low 32 bits,
-- objsubid = 1.
SELECT EXISTS (
  SELECT FROM pg_locks
  WHERE locktype = 'advisory'
    AND pid = pg_backend_pid()
    AND granted
    AND classid = (($1::bigint >> 32) & 4294967295)::oid
    AND objid = ($1::bigint & 4294967295)::oid
    AND objsubid = 1
);
