-- The shipments of order $1, newest first: with $2 (created_at) not NULL,
-- only those before the cursor ($2, $3 id); at most $4.
SELECT id, order_id, created_at, lines, order_version, metadata
FROM shipments
WHERE order_id = $1::text
  AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::text))
ORDER BY created_at DESC, id DESC
LIMIT $4::bigint;
