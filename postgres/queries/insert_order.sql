-- Insert order $1 (id) with $2 status, $3 created_at, $4 reservation_id,
-- $5 lines and $6 allocations (jsonb).
INSERT INTO orders (id, status, created_at, reservation_id, lines, allocations)
VALUES ($1::text, $2::text, $3::timestamptz, $4::text, $5::jsonb, $6::jsonb);
