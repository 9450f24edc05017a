-- Up to $2 (bigint, NULL for all) events with an id greater than $1, in id
-- order, each with its areas as show.sql gives them.
SELECT s.id, s.name, s.focal_x, s.focal_y, s.map, s.created_at, s.version,
       (SELECT json_agg(json_build_object('name', a.name, 'category', a.category, 'capacity', a.capacity,
                                          'held', a.held, 'booked', a.booked) ORDER BY a.name)
        FROM areas a
        WHERE a.show_id = s.id)
FROM shows s
WHERE s.id > $1::text
ORDER BY s.id
LIMIT $2::bigint;
