-- Delete the areas of event ?1 named in ?2 (a JSON array of names) that
-- have no place held or booked.
DELETE FROM areas
WHERE show_id = ?1 AND name IN (SELECT value FROM json_each(?2)) AND held = 0 AND booked = 0;
