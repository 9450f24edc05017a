-- Insert or replace the idempotency records given as parallel arrays:
-- $1 key, $2 op, $3 fingerprint, $4 result, $5 created_at. The keys must
-- be distinct.
INSERT INTO idempotency (key, op, fingerprint, result, created_at)
SELECT r.key, r.op, r.fingerprint, r.result, r.created_at
FROM unnest($1::text[], $2::text[], $3::text[], $4::bytea[], $5::timestamptz[])
     AS r (key, op, fingerprint, result, created_at)
ON CONFLICT (key) DO UPDATE
SET op          = excluded.op,
    fingerprint = excluded.fingerprint,
    result      = excluded.result,
    created_at  = excluded.created_at;
