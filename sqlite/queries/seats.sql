-- Seats of an event, in seat order. The store appends the WHERE clause:
-- the event (show_id = ?), or, given ids, the event and the ids as
-- primary keys ((show_id, id) IN (SELECT ?, value FROM json_each(?)), a
-- JSON array of ids), so that they are looked up; then the conditions of
-- the filter's other non-zero fields (status, section, the cursor
-- (section, "row", ord) > (?, ?, ?)), which read seats_order in order;
-- then ORDER BY section, "row", ord, id and LIMIT ? (-1 for all).
SELECT id, section, "row", label, ord, category, accessible, x, y, status, hold_id, booking_id
FROM seats
