-- Payment ?1 (id).
SELECT id, target_kind, target_id, amount, currency, status, resolution, order_id, booking_id,
	owner, created_at, updated_at, stuck_at, version, metadata
FROM payments
WHERE id = ?1;
