-- The areas of event $1 named $2 (text[]), in name order, locked in that
-- order: PutAreas checks their counts against the new capacities before it
-- writes.
SELECT name, held, booked
FROM areas
WHERE show_id = $1::text AND name = ANY ($2::text[])
ORDER BY name
FOR UPDATE;
