-- Create or replace seats of event ?1, whole: ?2 is a JSON array with one
-- [id, section, row, label, order, category, accessible (0 or 1), x, y,
-- status, hold_id, booking_id] array per seat. ("WHERE true" tells the
-- parser that ON CONFLICT belongs to the INSERT, not to the SELECT's
-- join.)
INSERT INTO seats (show_id, id, section, "row", label, ord, category, accessible, x, y, status, hold_id, booking_id)
SELECT ?1, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6,
	value ->> 7, value ->> 8, value ->> 9, value ->> 10, value ->> 11
FROM json_each(?2)
WHERE true
ON CONFLICT (show_id, id) DO UPDATE
SET section    = excluded.section,
    "row"      = excluded."row",
    label      = excluded.label,
    ord        = excluded.ord,
    category   = excluded.category,
    accessible = excluded.accessible,
    x          = excluded.x,
    y          = excluded.y,
    status     = excluded.status,
    hold_id    = excluded.hold_id,
    booking_id = excluded.booking_id;
