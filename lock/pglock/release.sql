-- Release advisory lock $1 (bigint) held by this session, and put the
-- session's idle_session_timeout, application_name and lock_timeout (set
-- while it queued, see try_acquire.sql) back to their defaults (a NULL
-- value to set_config is a RESET: the application_name the connection was
-- opened with), so that the connection can go back to the pool.
-- false (and a server WARNING) if this session does not hold the lock.
SELECT pg_advisory_unlock($1),
       CASE WHEN current_setting('idle_session_timeout', true) IS NOT NULL
            THEN set_config('idle_session_timeout', NULL, false) END,
       set_config('application_name', NULL, false),
       set_config('lock_timeout', NULL, false);
