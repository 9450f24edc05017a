-- Release advisory lock $1 (bigint) if this session holds it, in either
-- mode, quietly, and put the session's idle_session_timeout,
-- application_name and lock_timeout back to their defaults, as release.sql
-- does. Used to
-- clean up after a cancelled or failed wait, which may have been granted
-- the lock just as it gave up, and after a lost lease.
SELECT (SELECT count(CASE WHEN mode = 'ShareLock'
                          THEN pg_advisory_unlock_shared($1)
                          ELSE pg_advisory_unlock($1) END)
        FROM pg_locks
        WHERE locktype = 'advisory'
          AND pid = pg_backend_pid()
          AND granted
          AND classid = (($1::bigint >> 32) & 4294967295)::oid
          AND objid = ($1::bigint & 4294967295)::oid
          AND objsubid = 1),
       CASE WHEN current_setting('idle_session_timeout', true) IS NOT NULL
            THEN set_config('idle_session_timeout', NULL, false) END,
       set_config('application_name', NULL, false),
       set_config('lock_timeout', NULL, false);
