-- Insert reservation $1 (id) with $2 status, $3 created_at, $4 expires_at,
-- $5 order_id, $6 lines and $7 allocations (jsonb), and its allocations as
-- rows, given as parallel arrays: $8 sku, $9 location, $10 quantity.
WITH r AS (
	INSERT INTO reservations (id, status, created_at, expires_at, order_id, lines, allocations)
	VALUES ($1::text, $2::text, $3::timestamptz, $4::timestamptz, $5::text, $6::jsonb, $7::jsonb)
	RETURNING id
)
INSERT INTO reservation_allocations (reservation_id, n, sku, location, quantity)
SELECT r.id, a.n, a.sku, a.location, a.quantity
FROM r, unnest($8::text[], $9::text[], $10::bigint[]) WITH ORDINALITY AS a (sku, location, quantity, n);
