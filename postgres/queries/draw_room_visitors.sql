-- Give the visitors of room $1 (id) that have no position (0) the
-- positions $2 + 1, $2 + 2, … in the order of their draw, then of their
-- visitor id: one statement, however many visitors wait for the draw,
-- which reads them in that order from room_visitors_draw.
UPDATE room_visitors AS v
SET position = drawn.position
FROM (
	SELECT visitor_id, $2::bigint + row_number() OVER (ORDER BY draw, visitor_id) AS position
	FROM room_visitors
	WHERE room_id = $1::text AND position = 0
) AS drawn
WHERE v.room_id = $1::text AND v.visitor_id = drawn.visitor_id AND v.position = 0;
