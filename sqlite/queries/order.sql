-- Order ?1 (id).
SELECT id, status, created_at, reservation_id, lines, allocations, owner, version, metadata, shipped
FROM orders
WHERE id = ?1;
