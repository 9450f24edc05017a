-- Release shared advisory lock $1 (bigint) held by this session, and put
-- the session's idle_session_timeout, application_name and lock_timeout
-- back to their defaults, as release.sql does. false (and a server WARNING) if this
-- session does not hold it shared.
SELECT pg_advisory_unlock_shared($1),
       CASE WHEN current_setting('idle_session_timeout', true) IS NOT NULL
            THEN set_config('idle_session_timeout', NULL, false) END,
       set_config('application_name', NULL, false),
       set_config('lock_timeout', NULL, false);
