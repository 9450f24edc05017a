-- Move reservation ?1 (id) from status ?2 to status ?3, setting its order
-- id to ?4 unless ?4 is empty.
UPDATE reservations
SET status = ?3, order_id = iif(?4 = '', order_id, ?4)
WHERE id = ?1 AND status = ?2;
