-- As lapsed_reservations.sql, but only reservations with an allocation on
-- one of the levels $3 (text[] of SKUs) and $4 (text[] of locations,
-- pairwise with $3).
SELECT r.id, r.status, r.created_at, r.expires_at, r.order_id, r.lines, r.allocations
FROM reservations r
WHERE r.status = 'held' AND r.expires_at < $1::timestamptz
  AND EXISTS (
	SELECT 1
	FROM reservation_allocations a
	WHERE a.reservation_id = r.id
	  AND (a.sku, a.location) IN (SELECT * FROM unnest($3::text[], $4::text[]))
  )
ORDER BY r.expires_at, r.id
LIMIT $2::bigint
FOR UPDATE OF r SKIP LOCKED;
