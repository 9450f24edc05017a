-- Wait for advisory lock $1 for the rest of the current transaction, then
-- draw a fencing token from sequence $2. The lock is released at commit or
-- rollback.
-- $1 bigint lock id, $2 text schema-qualified, quoted sequence name.
-- Returns NULL when granted but the sequence does not exist yet.
SELECT nextval(to_regclass($2))
FROM pg_advisory_xact_lock($1);
