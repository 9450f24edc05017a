-- As reservation_lapse_candidates.sql, but only reservations with an
-- allocation on one of the levels $5 (text[] of SKUs) and $6 (text[] of
-- locations, pairwise with $5), for a request that needs their stock, and
-- without locks: the engine locks those that lapse (reservations.sql with
-- FOR UPDATE) and checks them again, so that a reservation its payment
-- keeps past its expiry is never locked by the requests for its stock.
SELECT r.id, r.status, r.created_at, r.expires_at, r.order_id, r.lines, r.allocations, r.owner, r.metadata
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
LIMIT $4::bigint;
