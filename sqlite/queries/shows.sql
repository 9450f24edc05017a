-- Up to ?2 events (shows) with an id after ?1 ('' for from the first), in
-- id order, each as show.sql returns it.
SELECT id, name, focal_x, focal_y, map, created_at, version,
	(SELECT json_group_array(json_object('name', areas.name, 'category', areas.category, 'capacity', areas.capacity,
		'held', areas.held, 'booked', areas.booked))
	 FROM areas WHERE areas.show_id = shows.id)
FROM shows
WHERE id > ?1
ORDER BY id
LIMIT ?2;
