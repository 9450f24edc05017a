-- Reservation ?1 (id).
SELECT id, status, created_at, expires_at, order_id, lines, allocations, owner, metadata
FROM reservations
WHERE id = ?1;
