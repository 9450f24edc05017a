-- The locations whose ids are in ?1 (a JSON array of text), or all of them
-- when ?1 is NULL, by id. The table is small: a scan is fine.
SELECT id, name, lat, lon, placed
FROM locations
WHERE ?1 IS NULL OR id IN (SELECT value FROM json_each(?1))
ORDER BY id;
