-- Whether this session holds advisory lock $1 (bigint) in mode $3 (text,
-- as pg_locks shows it: 'ExclusiveLock', or 'ShareLock' for a shared
-- lock), and set the session's idle_session_timeout to $2 (text,
-- milliseconds) for the refreshed TTL. pg_locks shows a bigint advisory
-- lock as classid = high 32 bits, objid = low 32 bits, objsubid = 1. The
-- timeout as set is NULL before PostgreSQL 14.
SELECT EXISTS (
         SELECT FROM pg_locks
         WHERE locktype = 'advisory'
           AND pid = pg_backend_pid()
           AND granted
           AND mode = $3
           AND classid = (($1::bigint >> 32) & 4294967295)::oid
           AND objid = ($1::bigint & 4294967295)::oid
           AND objsubid = 1
       ),
       CASE WHEN current_setting('idle_session_timeout', true) IS NOT NULL
            THEN set_config('idle_session_timeout', $2, false) END;
