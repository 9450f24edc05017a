-- The ids of the free seats of event $1, in seat order, from free_seats'
-- primary key alone.
SELECT id
FROM free_seats
WHERE show_id = $1::text
ORDER BY section, row, ord, id;
