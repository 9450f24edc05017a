-- Create or replace location ?1 (id) with name ?2 at (?3 lat, ?4 lon).
INSERT INTO locations (id, name, lat, lon)
VALUES (?1, ?2, ?3, ?4)
ON CONFLICT (id) DO UPDATE
SET name = excluded.name, lat = excluded.lat, lon = excluded.lon;
