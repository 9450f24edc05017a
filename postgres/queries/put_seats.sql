-- Create or replace whole seats of event $1, given as parallel arrays:
-- $2 id (distinct), $3 section, $4 row, $5 label, $6 ord, $7 category,
-- $8 accessible, $9 x, $10 y, $11 status, $12 hold_id, $13 booking_id.
-- A missing event is a foreign-key violation (seats_show_id_fkey).
INSERT INTO seats (show_id, id, section, row, label, ord, category, accessible, x, y, status, hold_id, booking_id)
SELECT $1::text, s.id, s.section, s.row, s.label, s.ord, s.category, s.accessible, s.x, s.y, s.status, s.hold_id, s.booking_id
FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::integer[], $7::text[], $8::boolean[],
            $9::double precision[], $10::double precision[], $11::text[], $12::text[], $13::text[])
     AS s (id, section, row, label, ord, category, accessible, x, y, status, hold_id, booking_id)
ON CONFLICT (show_id, id) DO UPDATE
SET section = excluded.section,
    row = excluded.row,
    label = excluded.label,
    ord = excluded.ord,
    category = excluded.category,
    accessible = excluded.accessible,
    x = excluded.x,
    y = excluded.y,
    status = excluded.status,
    hold_id = excluded.hold_id,
    booking_id = excluded.booking_id;
