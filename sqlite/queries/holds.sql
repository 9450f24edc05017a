-- The holds with the ids ?1 (a JSON array of text), in id order.
SELECT id, show_id, status, seats, places, split, created_at, expires_at, booking_id, owner, version, metadata
FROM holds
WHERE id IN (SELECT value FROM json_each(?1))
ORDER BY id;
