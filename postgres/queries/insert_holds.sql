-- Insert holds, given as parallel arrays: $1 id, $2 show_id, $3 status,
-- $4 seats and $5 places (JSON text), $6 split, $7 created_at,
-- $8 expires_at, $9 booking_id, $10 owner, $11 version, $12 metadata (JSON
-- text).
INSERT INTO holds (id, show_id, status, seats, places, split, created_at, expires_at, booking_id, owner, version, metadata)
SELECT h.id, h.show_id, h.status, h.seats::jsonb, h.places::jsonb, h.split, h.created_at, h.expires_at, h.booking_id, h.owner, h.version,
       h.metadata::jsonb
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::boolean[],
            $7::timestamptz[], $8::timestamptz[], $9::text[], $10::text[], $11::bigint[], $12::text[])
     AS h (id, show_id, status, seats, places, split, created_at, expires_at, booking_id, owner, version, metadata);
