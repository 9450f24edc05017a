-- Record the levels that reservations draw on, for the key filter of
-- lapsed_reservations_keys.sql. The store appends one (reservation_id,
-- sku, location) tuple of parameters per row, distinct per reservation,
-- as many rows per statement as SQLite binds.
INSERT INTO reservation_allocations (reservation_id, sku, location)
VALUES
