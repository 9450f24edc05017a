-- Area ?2 of event ?1.
SELECT name, category, capacity, held, booked
FROM areas
WHERE show_id = ?1 AND name = ?2;
