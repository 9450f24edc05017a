-- Insert payment $1 (id) of target $2 (kind), $3 (id): $4 amount,
-- $5 currency, $6 status, $7 resolution, $8 order_id, $9 booking_id,
-- $10 owner, $11 created_at, $12 updated_at, $13 stuck_at (NULL for
-- never), $14 version, $15 metadata (JSON text). An id in use, or a target with a payment, is a
-- unique violation.
INSERT INTO payments (id, target_kind, target_id, amount, currency, status, resolution, order_id, booking_id,
	owner, created_at, updated_at, stuck_at, version, metadata)
VALUES ($1::text, $2::text, $3::text, $4::bigint, $5::text, $6::text, $7::text, $8::text, $9::text,
	$10::text, $11::timestamptz, $12::timestamptz, $13::timestamptz, $14::bigint, $15::jsonb);
