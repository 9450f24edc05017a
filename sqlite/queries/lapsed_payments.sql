-- Up to ?2 (-1 for all) payments in flight and not found stuck whose
-- target is a held reservation or hold that expired before ?1 (Unix
-- microseconds), by the target's expiry, oldest first, then by id. Each
-- branch reads the few payments of payments_in_flight (its WHERE repeats
-- the index's, so that the planner may use it) and looks up their targets.
SELECT id, target_kind, target_id, amount, currency, status, resolution, order_id, booking_id,
	owner, created_at, updated_at, stuck_at, version
FROM (
	SELECT p.id, p.target_kind, p.target_id, p.amount, p.currency, p.status, p.resolution, p.order_id,
		p.booking_id, p.owner, p.created_at, p.updated_at, p.stuck_at, p.version, r.expires_at AS target_expires_at
	FROM payments p
	JOIN reservations r ON r.id = p.target_id
	WHERE p.status IN ('processing', 'authorized') AND p.stuck_at IS NULL
	  AND p.target_kind = 'reservation'
	  AND r.status = 'held' AND r.expires_at < ?1
	UNION ALL
	SELECT p.id, p.target_kind, p.target_id, p.amount, p.currency, p.status, p.resolution, p.order_id,
		p.booking_id, p.owner, p.created_at, p.updated_at, p.stuck_at, p.version, h.expires_at
	FROM payments p
	JOIN holds h ON h.id = p.target_id
	WHERE p.status IN ('processing', 'authorized') AND p.stuck_at IS NULL
	  AND p.target_kind = 'hold'
	  AND h.status = 'held' AND h.expires_at < ?1
)
ORDER BY target_expires_at, id
LIMIT ?2;
