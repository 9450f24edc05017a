-- Create or replace event (show) ?1 (id): name ?2, focal point (?3, ?4),
-- map ?5 (JSON text, as given), created_at ?6 (Unix microseconds) and
-- version ?7. Its seats and areas are other tables' rows, kept.
INSERT INTO shows (id, name, focal_x, focal_y, map, created_at, version)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
ON CONFLICT (id) DO UPDATE
SET name       = excluded.name,
    focal_x    = excluded.focal_x,
    focal_y    = excluded.focal_y,
    map        = excluded.map,
    created_at = excluded.created_at,
    version    = excluded.version;
