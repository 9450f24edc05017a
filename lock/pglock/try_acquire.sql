-- Take advisory lock $1 for this session if it is free now, draw a fencing
-- token from sequence $2 once it is ours, and set the session's
-- idle_session_timeout to $3, so that the server ends the session, and
-- frees the lock, if its holder stops talking to it.
-- $1 bigint lock id, $2 text schema-qualified, quoted sequence name,
-- $3 text idle_session_timeout in milliseconds.
-- No row: the lock is held, or has waiters queued (no barging).
-- One row: the token, NULL if the sequence does not exist yet; the
-- timeout as set, NULL on a server without idle_session_timeout (before
-- PostgreSQL 14).
SELECT nextval(to_regclass($2)),
       CASE WHEN current_setting('idle_session_timeout', true) IS NOT NULL
            THEN set_config('idle_session_timeout', $3, false) END
FROM pg_try_advisory_lock($1) AS granted
WHERE granted;
