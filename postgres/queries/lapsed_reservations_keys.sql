-- As lapsed_reservations.sql, but only reservations with an allocation on
-- one of the levels $3 (text[] of SKUs) and $4 (text[] of locations,
-- pairwise with $3), and for a request that needs their stock: it waits
-- for rows another transaction (a sweeper) has locked instead of skipping
-- them, and READ COMMITTED re-checks the status once it has the lock, so
-- holds that transaction expired are left out.
SELECT r.id, r.status, r.created_at, r.expires_at, r.order_id, r.lines, r.allocations, r.owner
FROM reservations r
WHERE r.status = 'held' AND r.expires_at < $1::timestamptz
  AND EXISTS (
	SELECT 1
	FROM reservation_allocations a
	WHERE a.reservation_id = r.id
	  AND (a.sku, a.location) IN (SELECT * FROM unnest($3::text[], $4::text[]))
  )
  AND NOT EXISTS (
	SELECT 1
	FROM payments p
	WHERE p.target_kind = 'reservation' AND p.target_id = r.id
	  AND p.status IN ('processing', 'authorized')
  )
ORDER BY r.expires_at, r.id
LIMIT $2::bigint
FOR UPDATE OF r;
