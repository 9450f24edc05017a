-- Insert reservations, given as parallel arrays: $1 id, $2 status,
-- $3 created_at, $4 expires_at, $5 order_id, $6 lines and $7 allocations
-- (JSON text); and their allocations as rows, given as parallel arrays:
-- $8 reservation id, $9 position in its reservation's allocations (from
-- 1), $10 sku, $11 location, $12 quantity. The foreign keys of the
-- allocation rows are checked at the end of the statement, once both
-- inserts have run.
WITH r AS (
	INSERT INTO reservations (id, status, created_at, expires_at, order_id, lines, allocations)
	SELECT r.id, r.status, r.created_at, r.expires_at, r.order_id, r.lines::jsonb, r.allocations::jsonb
	FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::text[], $6::text[], $7::text[])
	     AS r (id, status, created_at, expires_at, order_id, lines, allocations)
)
INSERT INTO reservation_allocations (reservation_id, n, sku, location, quantity)
SELECT a.reservation_id, a.n, a.sku, a.location, a.quantity
FROM unnest($8::text[], $9::integer[], $10::text[], $11::text[], $12::bigint[])
     AS a (reservation_id, n, sku, location, quantity);
