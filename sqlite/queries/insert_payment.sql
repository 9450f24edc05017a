-- Insert payment ?1 (id) of target ?2 (kind), ?3 (id): ?4 amount,
-- ?5 currency, ?6 status, ?7 resolution, ?8 order_id, ?9 booking_id,
-- ?10 owner, ?11 created_at and ?12 updated_at (Unix microseconds),
-- ?13 stuck_at (microseconds, NULL for never), ?14 version, ?15 metadata
-- (JSON text).
INSERT INTO payments (id, target_kind, target_id, amount, currency, status, resolution, order_id, booking_id,
	owner, created_at, updated_at, stuck_at, version, metadata)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15);
