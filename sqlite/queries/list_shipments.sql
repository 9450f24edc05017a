-- The shipments of order ?1, newest first: with ?2 (created_at, Unix
-- microseconds) not NULL, only those before the cursor (?2, ?3 id); at
-- most ?4.
SELECT id, order_id, created_at, lines, order_version, metadata
FROM shipments
WHERE order_id = ?1
  AND (?2 IS NULL OR created_at < ?2 OR (created_at = ?2 AND id < ?3))
ORDER BY created_at DESC, id DESC
LIMIT ?4;
