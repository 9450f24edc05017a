-- Take advisory lock $1 (bigint) shared, for this session, if no session
-- holds it exclusively and none waits for it exclusively (PostgreSQL
-- refuses a request that conflicts with a waiting one: readers do not pass
-- a queued writer), and set the session's idle_session_timeout to $2
-- (text, milliseconds), as try_acquire.sql does.
-- No row: refused. One row: 0 in place of a token (a shared lease has
-- none), and the timeout as set, NULL before PostgreSQL 14.
SELECT 0::bigint,
       CASE WHEN current_setting('idle_session_timeout', true) IS NOT NULL
            THEN set_config('idle_session_timeout', $2, false) END
FROM pg_try_advisory_lock_shared($1) AS granted
WHERE granted;
