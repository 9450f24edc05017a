-- Event (show) ?1 (id) as show.sql reads it but without its map: 'null'
-- in its place, so that the areas are those of the areas table alone.
SELECT id, name, focal_x, focal_y, 'null', created_at, version,
	(SELECT json_group_array(json_object('name', areas.name, 'category', areas.category, 'capacity', areas.capacity,
		'held', areas.held, 'booked', areas.booked))
	 FROM areas WHERE areas.show_id = shows.id)
FROM shows
WHERE id = ?1;
