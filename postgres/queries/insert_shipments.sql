-- Insert shipments, given as parallel arrays: $1 id, $2 order_id,
-- $3 created_at, $4 lines (JSON text), $5 order_version, $6 metadata (JSON
-- text).
INSERT INTO shipments (id, order_id, created_at, lines, order_version, metadata)
SELECT s.id, s.order_id, s.created_at, s.lines::jsonb, s.order_version, s.metadata::jsonb
FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[], $5::bigint[], $6::text[])
     AS s (id, order_id, created_at, lines, order_version, metadata);
