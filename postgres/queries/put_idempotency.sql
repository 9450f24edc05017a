-- Insert or replace the idempotency records given as parallel arrays:
-- $1 key, $2 request_hash, $3 state, $4 status, $5 body, $6 created_at.
-- The keys must be distinct.
INSERT INTO idempotency (key, request_hash, state, status, body, created_at)
SELECT r.key, r.request_hash, r.state, r.status, r.body, r.created_at
FROM unnest($1::text[], $2::text[], $3::text[], $4::integer[], $5::bytea[], $6::timestamptz[])
     AS r (key, request_hash, state, status, body, created_at)
ON CONFLICT (key) DO UPDATE
SET request_hash = excluded.request_hash,
    state        = excluded.state,
    status       = excluded.status,
    body         = excluded.body,
    created_at   = excluded.created_at;
