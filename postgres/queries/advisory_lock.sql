-- Take transaction-scoped advisory lock $1 (bigint), waiting for it in
-- the server's lock queue. It is released at commit or rollback.
SELECT pg_advisory_xact_lock($1::bigint);
