-- Take advisory lock $1 (bigint) shared, for this session, if no session
-- holds it exclusively and none waits for it exclusively (PostgreSQL
-- refuses a request that conflicts with a waiting one: readers do not pass
-- a queued writer). Once it is ours, set the session's
-- idle_session_timeout to $2 (text, milliseconds) and its
-- application_name to lock:$3:0:$4, as try_acquire.sql does; a refused
-- caller that will wait ($5 boolean) names its session so too, and bounds
-- its turns in the queue to $6 (text, milliseconds; see try_acquire.sql),
-- before acquire_shared.sql queues.
-- $3 text the kind (rwlock), $4 text the key as sessionKey escapes it.
-- Returns whether the lock was taken; 0 in place of a token (a shared
-- lease has none); the timeout as set, NULL if refused or before
-- PostgreSQL 14; the application_name as set, NULL if left alone; and the
-- lock_timeout as set, NULL if left alone.
SELECT granted,
       0::bigint,
       CASE WHEN granted AND current_setting('idle_session_timeout', true) IS NOT NULL
            THEN set_config('idle_session_timeout', $2, false) END,
       CASE WHEN granted OR $5::boolean
            THEN set_config('application_name', format('lock:%s:0:%s', $3::text, $4::text), false) END,
       CASE WHEN NOT granted AND $5::boolean
            THEN set_config('lock_timeout', $6::text, false) END
FROM pg_try_advisory_lock_shared($1) AS granted;
