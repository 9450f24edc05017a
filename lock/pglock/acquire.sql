-- Wait in the server's lock queue (first come, first served) for advisory
-- lock $1, then draw a fencing token from sequence $2, set the session's
-- idle_session_timeout to $3 and its application_name to
-- lock:$4:<token>:$5, as try_acquire.sql does.
-- $1 bigint lock id, $2 text schema-qualified, quoted sequence name,
-- $3 text idle_session_timeout in milliseconds, $4 text the kind (lock or
-- rwlock), $5 text the key as sessionKey escapes it.
-- Returns the token, NULL when granted but the sequence does not exist
-- yet; the timeout as set, NULL before PostgreSQL 14; and the
-- application_name as set.
SELECT token,
       CASE WHEN current_setting('idle_session_timeout', true) IS NOT NULL
            THEN set_config('idle_session_timeout', $3, false) END,
       set_config('application_name', format('lock:%s:%s:%s', $4::text, coalesce(token, 0), $5::text), false)
-- OFFSET 0 keeps the subquery whole: the token is drawn once, after the
-- grant, and the outer columns see it.
FROM (SELECT nextval(to_regclass($2)) AS token
      FROM pg_advisory_lock($1)
      OFFSET 0) AS granted;
