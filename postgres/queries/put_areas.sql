-- Create areas of event $1, or set the category and capacity of existing
-- ones, keeping their counts; given as parallel arrays: $2 name
-- (distinct), $3 category, $4 capacity. A missing event is a foreign-key
-- violation (areas_show_id_fkey), a capacity below an area's held and
-- booked places a check violation (areas_capacity_check).
INSERT INTO areas (show_id, name, category, capacity)
SELECT $1::text, a.name, a.category, a.capacity
FROM unnest($2::text[], $3::text[], $4::bigint[]) AS a (name, category, capacity)
ON CONFLICT (show_id, name) DO UPDATE
SET category = excluded.category,
    capacity = excluded.capacity;
