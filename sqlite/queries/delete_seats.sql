-- Delete the seats of event ?1 with the ids ?2 (a JSON array of text).
DELETE FROM seats
WHERE show_id = ?1 AND id IN (SELECT value FROM json_each(?2));
