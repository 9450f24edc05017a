-- Write $2 status, $3 resolution, $4 order_id, $5 booking_id, $6 stuck_at
-- (NULL for never), $7 updated_at and $8 version over payment $1 (id) if
-- its version is $8 - 1. A transaction that has the row locked makes it
-- wait; READ COMMITTED then checks the version on the row it committed.
UPDATE payments
SET status = $2::text, resolution = $3::text, order_id = $4::text, booking_id = $5::text,
    stuck_at = $6::timestamptz, updated_at = $7::timestamptz, version = $8::bigint
WHERE id = $1::text AND version = $8::bigint - 1;
