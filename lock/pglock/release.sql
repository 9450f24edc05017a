-- Release advisory lock $1 (bigint) held by this session. false (and a
-- server WARNING) if this session does not hold it.
SELECT pg_advisory_unlock($1);
