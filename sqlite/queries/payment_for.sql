-- The payment of target ?1 (kind), ?2 (id), through the unique constraint
-- on the target.
SELECT id, target_kind, target_id, amount, currency, status, resolution, order_id, booking_id,
	owner, created_at, updated_at, stuck_at, version, metadata
FROM payments
WHERE target_kind = ?1 AND target_id = ?2;
