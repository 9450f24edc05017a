-- Shows, newest first, without their maps and areas: the heads a list
-- shows. The store appends the WHERE clause for the filter's non-zero
-- fields (created_at at or after and before, and the cursor (created_at,
-- id) < (at, id)), then ORDER BY created_at DESC, id DESC and LIMIT, which
-- read shows_created backwards.
SELECT id, name, focal_x, focal_y, 'null'::json, created_at, version, NULL::json
FROM shows