-- Hold ?1 (id).
SELECT id, show_id, status, seats, places, split, created_at, expires_at, booking_id, owner, version, metadata
FROM holds
WHERE id = ?1;
