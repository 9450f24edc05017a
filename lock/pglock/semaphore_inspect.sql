-- The live entries of the semaphore keys starting with $1 (text,
-- Prefix+prefix), or, with $2 (boolean), of key $1 alone, in key and
-- arrival order, each with whether it holds its permits by the grant rule:
-- the permits of its key's live entries that arrived before it, plus its
-- own, fit the limit.
-- Returns the key (Prefix+key), arrival, n, limit, expires_at, and whether
-- the entry holds.
SELECT key, arrival, n, "limit", expires_at,
       sum(n) OVER (PARTITION BY key ORDER BY arrival) <= "limit"
FROM __TABLE__
WHERE CASE WHEN $2::boolean THEN key = $1 ELSE starts_with(key, $1) END
  AND expires_at > now()
ORDER BY key, arrival;
