-- Insert reservations. The store appends one (id, status, created_at,
-- expires_at, order_id, lines, allocations, owner, metadata) tuple of
-- parameters per row, as many rows per statement as SQLite binds; lines,
-- allocations and metadata are JSON text.
INSERT INTO reservations (id, status, created_at, expires_at, order_id, lines, allocations, owner, metadata)
VALUES
