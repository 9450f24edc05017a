-- Create areas of event ?1, or set the category and capacity of existing
-- ones, keeping their held and booked counts: ?2 is a JSON array with one
-- [name, category, capacity] array per area. The CHECK
-- areas_within_capacity fails the statement, which then changes nothing,
-- if a capacity is below what the area's holds and bookings have.
INSERT INTO areas (show_id, name, category, capacity)
SELECT ?1, value ->> 0, value ->> 1, value ->> 2
FROM json_each(?2)
WHERE true
ON CONFLICT (show_id, name) DO UPDATE
SET category = excluded.category,
    capacity = excluded.capacity;
