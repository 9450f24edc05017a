-- Wait in the server's lock queue (first come, first served) for advisory
-- lock $1, then draw a fencing token from sequence $2.
-- $1 bigint lock id, $2 text schema-qualified, quoted sequence name.
-- Returns NULL when granted but the sequence does not exist yet.
SELECT nextval(to_regclass($2))
FROM pg_advisory_lock($1);
