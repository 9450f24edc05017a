-- Insert or replace the idempotency record of key $1.
INSERT INTO idempotency (key, request_hash, state, status, body, created_at)
VALUES ($1::text, $2::text, $3::text, $4::integer, $5::bytea, $6::timestamptz)
ON CONFLICT (key) DO UPDATE
SET request_hash = excluded.request_hash,
    state        = excluded.state,
    status       = excluded.status,
    body         = excluded.body,
    created_at   = excluded.created_at;
