-- Take advisory lock $1 for this session if it is free now. Once it is
-- ours, draw a fencing token from sequence $2, set the session's
-- idle_session_timeout to $3, so that the server ends the session, and
-- frees the lock, if its holder stops talking to it, and set the session's
-- application_name to lock:$4:<token>:$5, which pg_stat_activity shows to
-- every session (see inspect_locks.sql). A refused caller that will wait
-- ($6) names its session lock:$4:0:$5 instead, before acquire.sql queues,
-- and bounds its turns in the server's lock queue to $7: a wait not
-- granted by then ends with lock_timeout's error (55P03), on the server's
-- own clock, and the waiter queues again if it still wants the lock. A
-- waiter whose process has stopped (paused, frozen) cannot queue again:
-- its turn ends, and the server never grants it the lock that a live
-- waiter behind it waits for. release.sql and release_if_held.sql reset
-- lock_timeout.
-- $1 bigint lock id, $2 text schema-qualified, quoted sequence name,
-- $3 text idle_session_timeout in milliseconds, $4 text the kind (lock or
-- rwlock), $5 text the key as sessionKey escapes it, $6 boolean whether a
-- refusal is followed by a wait, $7 text lock_timeout in milliseconds.
-- Returns whether the lock was taken (false: it is held, or has waiters
-- queued: no barging); the token, NULL if refused or if the sequence does
-- not exist yet; the timeout as set, NULL if refused or on a server
-- without idle_session_timeout (before PostgreSQL 14); the
-- application_name as set, NULL if left alone; and the lock_timeout as
-- set, NULL if left alone.
SELECT granted,
       token,
       CASE WHEN granted AND current_setting('idle_session_timeout', true) IS NOT NULL
            THEN set_config('idle_session_timeout', $3, false) END,
       CASE WHEN granted OR $6::boolean
            THEN set_config('application_name', format('lock:%s:%s:%s', $4::text, coalesce(token, 0), $5::text), false) END,
       CASE WHEN NOT granted AND $6::boolean
            THEN set_config('lock_timeout', $7::text, false) END
-- OFFSET 0 keeps the subquery whole: the token is drawn once, after the
-- lock is taken, and the outer columns see it.
FROM (SELECT granted, CASE WHEN granted THEN nextval(to_regclass($2)) END AS token
      FROM pg_try_advisory_lock($1) AS granted
      OFFSET 0) AS taken;
