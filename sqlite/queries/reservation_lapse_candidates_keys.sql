-- As reservation_lapse_candidates.sql, but only reservations with an
-- allocation on one of the levels ?5 (a JSON array of [sku, location]
-- pairs).
SELECT r.id, r.status, r.created_at, r.expires_at, r.order_id, r.lines, r.allocations, r.owner, r.metadata,
	coalesce(p.status, '')
FROM reservations r
LEFT JOIN payments p ON p.target_kind = 'reservation' AND p.target_id = r.id
WHERE r.status = 'held' AND r.expires_at < ?1
  AND (r.expires_at, r.id) > (?2, ?3)
  AND r.id IN (
	SELECT reservation_id
	FROM reservation_allocations
	WHERE (sku, location) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?5))
  )
ORDER BY r.expires_at, r.id
LIMIT ?4;
