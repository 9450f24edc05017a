-- Order $1 (id); FOR UPDATE may be appended.
SELECT id, status, created_at, reservation_id, lines, allocations, owner, version, metadata, shipped
FROM orders
WHERE id = $1
