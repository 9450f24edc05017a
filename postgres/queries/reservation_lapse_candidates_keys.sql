-- As reservation_lapse_candidates.sql, but only reservations with an
-- allocation on one of the levels $5 (text[] of SKUs) and $6 (text[] of
-- locations, pairwise with $5), and for a request that needs their stock:
-- it waits for rows another transaction (a sweeper) has locked instead of
-- skipping them, and READ COMMITTED re-checks the status and the expiry
-- once it has the lock, so holds that transaction expired are left out.
SELECT r.id, r.status, r.created_at, r.expires_at, r.order_id, r.lines, r.allocations, r.owner
FROM reservations r
WHERE r.status = 'held' AND r.expires_at < $1::timestamptz
  AND (r.expires_at, r.id) > ($2::timestamptz, $3::text)
  AND EXISTS (
	SELECT 1
	FROM reservation_allocations a
	WHERE a.reservation_id = r.id
	  AND (a.sku, a.location) IN (SELECT * FROM unnest($5::text[], $6::text[]))
  )
ORDER BY r.expires_at, r.id
LIMIT $4::bigint
FOR UPDATE OF r;
