-- The ids of the free seats of event ?1, in seat order, from the partial
-- index seats_free alone.
SELECT id
FROM seats
WHERE show_id = ?1 AND status = 'free'
ORDER BY section, "row", ord, id;
