-- Insert orders. The store appends one (id, status, created_at,
-- reservation_id, lines, allocations, owner, metadata) tuple of parameters
-- per row, as many rows per statement as SQLite binds; lines, allocations
-- and metadata are JSON text.
INSERT INTO orders (id, status, created_at, reservation_id, lines, allocations, owner, metadata)
VALUES
