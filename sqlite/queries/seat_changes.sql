-- Seat history rows, oldest first. The store appends the WHERE clause: the
-- event (show_id = ?), the filter's non-zero fields (seat = ?, area = ?)
-- and the cursor (id > ?); then ORDER BY id and LIMIT ? (-1 for all).
SELECT id, at, show_id, seat, area, quantity, from_status, to_status, hold_id, booking_id, actor
FROM seat_history
