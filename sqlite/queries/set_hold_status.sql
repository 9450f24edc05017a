-- Move hold ?1 (id) from status ?2 to status ?3, setting its booking id
-- to ?4 unless ?4 is empty, and counting the change in its version.
UPDATE holds
SET status = ?3, booking_id = iif(?4 = '', booking_id, ?4), version = version + 1
WHERE id = ?1 AND status = ?2;
