-- Up to ?4 (-1 for all) payments, whatever their status, whose target is
-- a held reservation or hold that expired before ?1 (Unix microseconds),
-- each with that expiry, after the cursor (?2, ?3): by the target's
-- expiry, then by the payment's id. Each branch reads the targets'
-- partial index of held expiries and looks up each one's payment by the
-- unique constraint on the target. Which of them are stuck is the
-- engine's rule.
SELECT id, target_kind, target_id, amount, currency, status, resolution, order_id, booking_id,
	owner, created_at, updated_at, stuck_at, version, metadata, target_expires_at
FROM (
	SELECT p.id, p.target_kind, p.target_id, p.amount, p.currency, p.status, p.resolution, p.order_id,
		p.booking_id, p.owner, p.created_at, p.updated_at, p.stuck_at, p.version, p.metadata, r.expires_at AS target_expires_at
	FROM reservations r
	JOIN payments p ON p.target_kind = 'reservation' AND p.target_id = r.id
	WHERE r.status = 'held' AND r.expires_at < ?1 AND r.expires_at >= ?2
	  AND (r.expires_at, p.id) > (?2, ?3)
	UNION ALL
	SELECT p.id, p.target_kind, p.target_id, p.amount, p.currency, p.status, p.resolution, p.order_id,
		p.booking_id, p.owner, p.created_at, p.updated_at, p.stuck_at, p.version, p.metadata, h.expires_at
	FROM holds h
	JOIN payments p ON p.target_kind = 'hold' AND p.target_id = h.id
	WHERE h.status = 'held' AND h.expires_at < ?1 AND h.expires_at >= ?2
	  AND (h.expires_at, p.id) > (?2, ?3)
)
ORDER BY target_expires_at, id
LIMIT ?4;
