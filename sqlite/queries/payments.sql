-- The payments with the ids ?1 (a JSON array of text), in id order.
SELECT id, target_kind, target_id, amount, currency, status, resolution, order_id, booking_id,
	owner, created_at, updated_at, stuck_at, version, metadata
FROM payments
WHERE id IN (SELECT value FROM json_each(?1))
ORDER BY id;
