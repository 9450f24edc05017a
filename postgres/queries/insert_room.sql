-- Insert room $1 (id) in front of show $2 ('' for none) or SKUs $3 (empty
-- for none), opening at $4, with active limit $5, rate $6 per minute,
-- admissions of $7 microseconds, order $8, $9 per visitor, stock factor
-- $10, status $11, $12 joined, $13 ordered, $14 admitted, credit $15 at
-- $16, paused $17, sold out at $18 (NULL for not), secret $19, metadata
-- $20, created at $21, updated at $22, version $23. An id in use is a
-- unique violation.
INSERT INTO rooms (id, show_id, skus, opens_at, active_limit, admit_per_minute, admission_ttl_us, admission_order,
	per_visitor, stock_factor, status, joined, ordered, admitted, credit, credit_at, paused, sold_out_at, secret,
	metadata, created_at, updated_at, version)
VALUES ($1::text, $2::text, $3::text[], $4::timestamptz, $5::bigint, $6::bigint, $7::bigint, $8::text,
	$9::bigint, $10::double precision, $11::text, $12::bigint, $13::bigint, $14::bigint, $15::double precision,
	$16::timestamptz, $17::text, $18::timestamptz, $19::text, $20::jsonb, $21::timestamptz, $22::timestamptz,
	$23::bigint);
