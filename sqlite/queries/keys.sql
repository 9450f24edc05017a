-- Up to ?2 API keys with an id after ?1 ('' for from the first), in id
-- order, revoked ones included.
SELECT id, name, role, rate_limit, hash, created_at, revoked_at
FROM api_keys
WHERE id > ?1
ORDER BY id
LIMIT ?2;
