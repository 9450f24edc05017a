-- The reservations with the ids $1 (text[]), in id order; FOR UPDATE may
-- be appended, locking them in that order.
SELECT id, status, created_at, expires_at, order_id, lines, allocations, owner, metadata
FROM reservations
WHERE id = ANY ($1::text[])
ORDER BY id
