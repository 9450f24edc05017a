-- Take advisory lock $1 for this session if it is free now, and draw a
-- fencing token from sequence $2 once it is ours.
-- $1 bigint lock id, $2 text schema-qualified, quoted sequence name.
-- No row: the lock is held, or has waiters queued (no barging).
-- One row, NULL: granted, but the sequence does not exist yet.
SELECT nextval(to_regclass($2))
FROM pg_try_advisory_lock($1) AS granted
WHERE granted;
