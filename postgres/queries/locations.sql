-- The locations whose ids are in $1 (text[]), or all of them when $1 is
-- empty, by id. The table is small: a sequential scan is fine.
SELECT id, name, lat, lon, placed
FROM locations
WHERE cardinality($1::text[]) = 0 OR id = ANY ($1::text[])
ORDER BY id;
