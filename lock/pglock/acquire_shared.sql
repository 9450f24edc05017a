-- Wait in the server's lock queue (first come, first served; behind any
-- writer queued earlier) for advisory lock $1 (bigint) shared, then set the
-- session's idle_session_timeout to $2 (text, milliseconds), as
-- acquire.sql does.
-- Returns 0 in place of a token (a shared lease has none), and the timeout
-- as set, NULL before PostgreSQL 14.
SELECT 0::bigint,
       CASE WHEN current_setting('idle_session_timeout', true) IS NOT NULL
            THEN set_config('idle_session_timeout', $2, false) END
FROM pg_advisory_lock_shared($1);
