-- Event $1 (id) as show.sql reads it but without its map: 'null' in its
-- place, so that the areas are those of the areas table alone, in name
-- order. FOR UPDATE OF s may be appended: it locks the event's row, not
-- its areas.
SELECT s.id, s.name, s.focal_x, s.focal_y, 'null'::json, s.created_at, s.version,
       (SELECT json_agg(json_build_object('name', a.name, 'category', a.category, 'capacity', a.capacity,
                                          'held', a.held, 'booked', a.booked) ORDER BY a.name)
        FROM areas a
        WHERE a.show_id = s.id)
FROM shows s
WHERE s.id = $1::text
