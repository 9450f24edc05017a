-- The room that holds the target $1, if any: rooms_holding.sql for one
-- target. A scalar parameter lets the server keep one generic plan for
-- the session; with an array it plans the join at every run (about 75 µs,
-- in every hold batch and reservation of one SKU).
SELECT id, show_id, skus, opens_at, active_limit, admit_per_minute, admission_ttl_us, admission_order, per_visitor,
	stock_factor, status, joined, ordered, admitted, credit, credit_at, paused, sold_out_at, secret, metadata,
	created_at, updated_at, version
FROM rooms
WHERE id = (SELECT room_id FROM room_targets WHERE target = $1::text);
