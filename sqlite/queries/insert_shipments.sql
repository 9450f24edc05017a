-- Insert shipments. The store appends one (id, order_id, created_at,
-- lines, order_version, metadata) tuple of parameters per row, as many
-- rows per statement as SQLite binds; lines and metadata are JSON text,
-- created_at Unix microseconds.
INSERT INTO shipments (id, order_id, created_at, lines, order_version, metadata)
VALUES
