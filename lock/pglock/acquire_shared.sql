-- Wait in the server's lock queue (first come, first served; behind any
-- writer queued earlier) for advisory lock $1 (bigint) shared, then set the
-- session's idle_session_timeout to $2 (text, milliseconds) and its
-- application_name to lock:$3:0:$4, as acquire.sql does.
-- $3 text the kind (rwlock), $4 text the key as sessionKey escapes it.
-- Returns 0 in place of a token (a shared lease has none), the timeout as
-- set, NULL before PostgreSQL 14, and the application_name as set.
SELECT 0::bigint,
       CASE WHEN current_setting('idle_session_timeout', true) IS NOT NULL
            THEN set_config('idle_session_timeout', $2, false) END,
       set_config('application_name', format('lock:%s:0:%s', $3::text, $4::text), false)
FROM pg_advisory_lock_shared($1);
