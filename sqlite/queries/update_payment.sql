-- Write ?2 status, ?3 resolution, ?4 order_id, ?5 booking_id, ?6 stuck_at
-- (Unix microseconds, NULL for never), ?7 updated_at (microseconds) and
-- ?8 version over payment ?1 (id) if its version is ?8 - 1.
UPDATE payments
SET status = ?2, resolution = ?3, order_id = ?4, booking_id = ?5, stuck_at = ?6, updated_at = ?7, version = ?8
WHERE id = ?1 AND version = ?8 - 1;
