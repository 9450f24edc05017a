-- Create or replace location $1 with name $2 at ($3 lat, $4 lon), placed
-- $5 (false: a location without a place, at 0, 0).
INSERT INTO locations (id, name, lat, lon, placed)
VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (id) DO UPDATE
SET name = excluded.name, lat = excluded.lat, lon = excluded.lon, placed = excluded.placed;
