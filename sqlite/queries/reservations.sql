-- The reservations with the ids ?1 (a JSON array of text), in id order.
SELECT id, status, created_at, expires_at, order_id, lines, allocations, owner, metadata
FROM reservations
WHERE id IN (SELECT value FROM json_each(?1))
ORDER BY id;
