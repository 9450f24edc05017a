-- Insert orders, given as parallel arrays: $1 id, $2 status, $3 created_at,
-- $4 reservation_id, $5 lines and $6 allocations (JSON text), $7 owner,
-- $8 metadata (JSON text).
INSERT INTO orders (id, status, created_at, reservation_id, lines, allocations, owner, metadata)
SELECT o.id, o.status, o.created_at, o.reservation_id, o.lines::jsonb, o.allocations::jsonb, o.owner, o.metadata::jsonb
FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
     AS o (id, status, created_at, reservation_id, lines, allocations, owner, metadata);
