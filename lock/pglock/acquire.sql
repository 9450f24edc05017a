-- Wait in the server's lock queue (first come, first served) for advisory
-- lock $1, then draw a fencing token from sequence $2 and set the session's
-- idle_session_timeout to $3, as try_acquire.sql does.
-- $1 bigint lock id, $2 text schema-qualified, quoted sequence name,
-- $3 text idle_session_timeout in milliseconds.
-- Returns the token, NULL when granted but the sequence does not exist
-- yet; and the timeout as set, NULL before PostgreSQL 14.
SELECT nextval(to_regclass($2)),
       CASE WHEN current_setting('idle_session_timeout', true) IS NOT NULL
            THEN set_config('idle_session_timeout', $3, false) END
FROM pg_advisory_lock($1);
