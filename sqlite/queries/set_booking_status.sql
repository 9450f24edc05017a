-- Move booking ?1 (id) from status ?2 to status ?3.
UPDATE bookings
SET status = ?3
WHERE id = ?1 AND status = ?2;
