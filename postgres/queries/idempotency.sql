-- The idempotency record of key $1.
SELECT key, request_hash, state, status, body, created_at
FROM idempotency
WHERE key = $1::text;
