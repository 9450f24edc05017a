-- Up to $4 (bigint, NULL for all) payments, whatever their status, whose
-- target is a held reservation or hold that expired before $1, each with
-- that expiry, after the cursor ($2, $3): by the target's expiry, then by
-- the payment's id. Each branch reads the targets' partial index of held
-- expiries (reservations_held_expiry, holds_held_expiry) and looks up
-- each one's payment by the unique constraint on the target. Which of
-- them are stuck is the engine's rule. Nothing is locked: the caller
-- locks the target, then the payment, and checks again.
SELECT id, target_kind, target_id, amount, currency, status, resolution, order_id, booking_id,
	owner, created_at, updated_at, stuck_at, version, metadata, target_expires_at
FROM (
	SELECT p.id, p.target_kind, p.target_id, p.amount, p.currency, p.status, p.resolution, p.order_id,
		p.booking_id, p.owner, p.created_at, p.updated_at, p.stuck_at, p.version, p.metadata, r.expires_at AS target_expires_at
	FROM reservations r
	JOIN payments p ON p.target_kind = 'reservation' AND p.target_id = r.id
	WHERE r.status = 'held' AND r.expires_at < $1::timestamptz AND r.expires_at >= $2::timestamptz
	  AND (r.expires_at, p.id) > ($2::timestamptz, $3::text)
	UNION ALL
	SELECT p.id, p.target_kind, p.target_id, p.amount, p.currency, p.status, p.resolution, p.order_id,
		p.booking_id, p.owner, p.created_at, p.updated_at, p.stuck_at, p.version, p.metadata, h.expires_at
	FROM holds h
	JOIN payments p ON p.target_kind = 'hold' AND p.target_id = h.id
	WHERE h.status = 'held' AND h.expires_at < $1::timestamptz AND h.expires_at >= $2::timestamptz
	  AND (h.expires_at, p.id) > ($2::timestamptz, $3::text)
) candidates
ORDER BY target_expires_at, id
LIMIT $4::bigint;
