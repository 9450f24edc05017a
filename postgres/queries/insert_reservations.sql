-- Insert reservations, given as parallel arrays: $1 id, $2 status,
-- $3 created_at, $4 expires_at, $5 order_id, $6 lines and $7 allocations
-- (JSON text), $8 owner; and their allocations as rows, given as parallel
-- arrays: $9 reservation id, $10 position in its reservation's allocations
-- (from 1), $11 sku, $12 location, $13 quantity; and $14 the reservations'
-- metadata (JSON text). The foreign keys of the
-- allocation rows are checked at the end of the statement, once both
-- inserts have run.
WITH r AS (
	INSERT INTO reservations (id, status, created_at, expires_at, order_id, lines, allocations, owner, metadata)
	SELECT r.id, r.status, r.created_at, r.expires_at, r.order_id, r.lines::jsonb, r.allocations::jsonb, r.owner, r.metadata::jsonb
	FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::text[], $6::text[], $7::text[], $8::text[], $14::text[])
	     AS r (id, status, created_at, expires_at, order_id, lines, allocations, owner, metadata)
)
INSERT INTO reservation_allocations (reservation_id, n, sku, location, quantity)
SELECT a.reservation_id, a.n, a.sku, a.location, a.quantity
FROM unnest($9::text[], $10::integer[], $11::text[], $12::text[], $13::bigint[])
     AS a (reservation_id, n, sku, location, quantity);
