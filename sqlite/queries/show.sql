-- Event (show) ?1 (id), with the current state of its areas in a JSON
-- array of {"name", "category", "capacity", "held", "booked"} objects
-- (the empty array for none).
SELECT id, name, focal_x, focal_y, map, created_at, version,
	(SELECT json_group_array(json_object('name', areas.name, 'category', areas.category, 'capacity', areas.capacity,
		'held', areas.held, 'booked', areas.booked))
	 FROM areas WHERE areas.show_id = shows.id)
FROM shows
WHERE id = ?1;
