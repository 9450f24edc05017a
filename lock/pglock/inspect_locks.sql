-- The sessions that hold or wait for advisory locks of the current
-- database: those on lock ids $1 (bigint[]), or, with $1 NULL, those on
-- every id that a session named by a Locker holds or waits for under a key
-- starting with $2 (text, escaped as sessionKey escapes keys). Every
-- session on such an id is listed, named or not (a LockTx, another
-- client). A Locker names a session lock:<kind>:<token>:<key> (see
-- try_acquire.sql), and pg_stat_activity shows every role the first 63
-- bytes of the name. pg_locks shows a bigint advisory lock as classid =
-- high 32 bits, objid = low 32 bits, objsubid = 1. A lock held by a
-- prepared transaction, which has no session, is not listed.
-- With $3 (boolean), each holding session is terminated, as
-- pg_terminate_backend does (which takes the session's role, or
-- pg_signal_backend): it ends at once, and the server frees its locks and
-- grants them to their waiters.
-- Returns one row per session and lock, the lock's holders first, by pid,
-- then its waiters in the order their waits began: the id's high and low
-- 32 bits; the pid; whether the session holds the lock (else it waits);
-- whether in share mode; the kind, token and key its name shows, NULL if
-- a Locker did not name it; and, with $3, whether it was terminated.
WITH advisory AS (
    SELECT l.classid::bigint AS hi,
           l.objid::bigint AS lo,
           l.pid,
           l.granted,
           l.mode = 'ShareLock' AS shared,
           a.query_start,
           regexp_match(a.application_name, '^lock:(lock|rwlock):([0-9]+):(.*)$') AS named
    FROM pg_locks AS l
    JOIN pg_stat_activity AS a ON a.pid = l.pid
    WHERE l.locktype = 'advisory'
      AND l.objsubid = 1
      AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
), ids AS (
    SELECT DISTINCT hi, lo
    FROM advisory
    WHERE CASE WHEN $1::bigint[] IS NULL
               THEN starts_with(named[3], $2::text)
               ELSE (hi, lo) IN (SELECT (id >> 32) & 4294967295, id & 4294967295
                                 FROM unnest($1::bigint[]) AS id) END
)
SELECT hi, lo, pid, granted, shared, named[1], named[2], named[3],
       CASE WHEN $3::boolean AND granted THEN pg_terminate_backend(pid) END
FROM advisory
JOIN ids USING (hi, lo)
ORDER BY hi, lo, granted DESC, CASE WHEN NOT granted THEN query_start END, pid;
