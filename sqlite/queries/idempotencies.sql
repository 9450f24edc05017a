-- The idempotency records of the keys in ?1, a JSON array of strings, in
-- key order.
SELECT key, op, fingerprint, result, created_at
FROM idempotency
WHERE key IN (SELECT value FROM json_each(?1))
ORDER BY key;
