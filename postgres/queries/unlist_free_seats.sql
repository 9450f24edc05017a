-- Delete from free_seats the rows of the seats $2 (text[]) of event $1,
-- as seats has them: before SeatPut writes them anew.
DELETE FROM free_seats f
USING seats s
WHERE s.show_id = $1::text AND s.id = ANY ($2::text[])
  AND f.show_id = $1::text AND f.section = s.section AND f.row = s.row AND f.ord = s.ord AND f.id = s.id;
