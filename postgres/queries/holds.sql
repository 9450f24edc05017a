-- The holds with the ids $1 (text[]), in id order; FOR UPDATE may be
-- appended, locking them in that order.
SELECT id, show_id, status, seats, places, split, created_at, expires_at, booking_id, owner, version, metadata
FROM holds
WHERE id = ANY ($1::text[])
ORDER BY id
