-- Write $2 opens_at, $3 active_limit, $4 admit_per_minute, $5
-- admission_ttl_us, $6 admission_order, $7 per_visitor, $8 stock_factor,
-- $9 status, $10 joined, $11 ordered, $12 admitted, $13 credit, $14
-- credit_at, $15 paused, $16 sold_out_at, $17 secret, $18 metadata, $19
-- updated_at and $20 version over room $1 (id) if its version is $20 - 1.
-- It returns the room's show_id and skus, which it keeps, and whether the
-- room holds its targets (has rows in room_targets, which the row lock
-- the update takes keeps as they are), for the store to hold or release
-- them as the new status says.
UPDATE rooms
SET opens_at = $2::timestamptz, active_limit = $3::bigint, admit_per_minute = $4::bigint,
    admission_ttl_us = $5::bigint, admission_order = $6::text, per_visitor = $7::bigint,
    stock_factor = $8::double precision, status = $9::text, joined = $10::bigint, ordered = $11::bigint,
    admitted = $12::bigint, credit = $13::double precision, credit_at = $14::timestamptz, paused = $15::text,
    sold_out_at = $16::timestamptz, secret = $17::text, metadata = $18::jsonb, updated_at = $19::timestamptz,
    version = $20::bigint
WHERE id = $1::text AND version = $20::bigint - 1
RETURNING show_id, skus, EXISTS (SELECT 1 FROM room_targets WHERE room_targets.room_id = rooms.id);
