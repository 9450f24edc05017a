-- Booking ?1 (id).
SELECT id, show_id, hold_id, status, seats, places, created_at, owner, metadata
FROM bookings
WHERE id = ?1;
