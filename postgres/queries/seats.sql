-- The seats of event $1. The store appends the conditions of the filter's
-- non-zero fields (id = ANY, status, section, and the cursor (section,
-- row, ord) > (…)), then ORDER BY section, row, ord, id (seat order, read
-- along seats_order; the id only breaks ties), LIMIT, and FOR UPDATE,
-- which locks the rows in that order.
SELECT id, section, row, label, ord, category, accessible, x, y, status, hold_id, booking_id
FROM seats
WHERE show_id = $1::text
