-- Insert bookings, given as parallel arrays: $1 id, $2 show_id, $3 hold_id,
-- $4 status, $5 seats and $6 places (JSON text), $7 created_at, $8 owner,
-- $9 metadata (JSON text).
INSERT INTO bookings (id, show_id, hold_id, status, seats, places, created_at, owner, metadata)
SELECT b.id, b.show_id, b.hold_id, b.status, b.seats::jsonb, b.places::jsonb, b.created_at, b.owner, b.metadata::jsonb
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::text[], $9::text[])
     AS b (id, show_id, hold_id, status, seats, places, created_at, owner, metadata);
