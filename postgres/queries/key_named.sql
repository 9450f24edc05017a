-- The API key named $1, revoked or not.
SELECT id, name, role, rate_limit, hash, created_at, revoked_at
FROM api_keys
WHERE name = $1::text;
