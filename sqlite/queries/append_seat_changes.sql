-- Append rows to the seat history. The store appends one (at, show_id,
-- seat, area, quantity, from_status, to_status, hold_id, booking_id,
-- actor) tuple of parameters per row, as many rows per statement as SQLite
-- binds; ids are assigned in row order.
INSERT INTO seat_history (at, show_id, seat, area, quantity, from_status, to_status, hold_id, booking_id, actor)
VALUES
