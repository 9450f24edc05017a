-- As lapsed_reservations.sql, but only reservations with an allocation on
-- one of the levels ?3 (a JSON array of [sku, location] pairs).
SELECT id, status, created_at, expires_at, order_id, lines, allocations, owner
FROM reservations
WHERE status = 'held' AND expires_at < ?1
  AND id IN (
	SELECT reservation_id
	FROM reservation_allocations
	WHERE (sku, location) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?3))
  )
  AND NOT EXISTS (
	SELECT 1
	FROM payments p
	WHERE p.target_kind = 'reservation' AND p.target_id = reservations.id
	  AND p.status IN ('processing', 'authorized')
  )
ORDER BY expires_at, id
LIMIT ?2;
