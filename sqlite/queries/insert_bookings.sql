-- Insert bookings. The store appends one (id, show_id, hold_id, status,
-- seats, places, created_at, owner, metadata) tuple of parameters per row,
-- as many rows per statement as SQLite binds; seats, places and metadata
-- are JSON text.
INSERT INTO bookings (id, show_id, hold_id, status, seats, places, created_at, owner, metadata)
VALUES
