-- Seat history rows of event $1, oldest first. The store appends the
-- conditions of the filter's non-zero fields (seat, area, id after), then
-- ORDER BY id and LIMIT; one seat's rows read seat_history_seat.
SELECT id, at, show_id, seat, area, quantity, from_status, to_status, hold_id, booking_id, actor
FROM seat_history
WHERE show_id = $1::text
