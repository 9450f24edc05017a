-- The idempotency records of the keys $1 (text[]), in key order.
SELECT key, request_hash, state, status, body, created_at
FROM idempotency
WHERE key = ANY ($1::text[])
ORDER BY key;
