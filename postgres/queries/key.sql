-- API key $1 (id), revoked or not.
SELECT id, name, role, rate_limit, hash, created_at, revoked_at
FROM api_keys
WHERE id = $1::text;
