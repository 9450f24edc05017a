-- The idempotency record of key ?1, if any.
SELECT key, op, fingerprint, result, created_at
FROM idempotency
WHERE key = ?1;
