-- The idempotency records of the keys $1 (text[]), in key order.
SELECT key, op, fingerprint, result, created_at
FROM idempotency
WHERE key = ANY ($1::text[])
ORDER BY key;
