-- Bookings, newest first, as list_holds.sql, on bookings_created,
-- bookings_show_created or bookings_owner_created.
SELECT id, show_id, hold_id, status, seats, places, created_at, owner, metadata
FROM bookings
