-- The payments with the ids $1 (text[]), in id order; FOR UPDATE may be
-- appended, locking them in that order.
SELECT id, target_kind, target_id, amount, currency, status, resolution, order_id, booking_id,
	owner, created_at, updated_at, stuck_at, version, metadata
FROM payments
WHERE id = ANY ($1::text[])
ORDER BY id
