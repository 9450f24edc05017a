-- Insert holds. The store appends one (id, show_id, status, seats, places,
-- split, created_at, expires_at, booking_id, owner, version, metadata) tuple
-- of parameters per row, as many rows per statement as SQLite binds; seats,
-- places and metadata are JSON text, split 0 or 1.
INSERT INTO holds (id, show_id, status, seats, places, split, created_at, expires_at, booking_id, owner, version, metadata)
VALUES
