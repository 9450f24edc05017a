-- Room ?1 (id).
SELECT id, show_id, skus, opens_at, active_limit, admit_per_minute, admission_ttl_us, admission_order, per_visitor,
	stock_factor, status, joined, ordered, admitted, credit, credit_at, paused, sold_out_at, secret, metadata,
	created_at, updated_at, version
FROM rooms
WHERE id = ?1;
