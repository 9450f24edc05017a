-- Create event $1 (id) or replace its row: $2 name, $3 focal_x, $4 focal_y,
-- $5 map (JSON text: {"rows": […], "areas": […]}), $6 created_at,
-- $7 version. Its seats and areas are not touched.
INSERT INTO shows (id, name, focal_x, focal_y, map, created_at, version)
VALUES ($1::text, $2::text, $3::double precision, $4::double precision, $5::json, $6::timestamptz, $7::bigint)
ON CONFLICT (id) DO UPDATE
SET name = excluded.name,
    focal_x = excluded.focal_x,
    focal_y = excluded.focal_y,
    map = excluded.map,
    created_at = excluded.created_at,
    version = excluded.version;
