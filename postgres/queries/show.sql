-- Event $1 (id), and last its areas as a JSON array of {name, category,
-- capacity, held, booked} in name order, NULL for none. FOR UPDATE OF s
-- may be appended: it locks the event's row, not its areas.
SELECT s.id, s.name, s.focal_x, s.focal_y, s.map, s.created_at, s.version,
       (SELECT json_agg(json_build_object('name', a.name, 'category', a.category, 'capacity', a.capacity,
                                          'held', a.held, 'booked', a.booked) ORDER BY a.name)
        FROM areas a
        WHERE a.show_id = s.id)
FROM shows s
WHERE s.id = $1::text
