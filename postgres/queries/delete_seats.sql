-- Delete the seats of event $1 with the ids $2 (text[]), and their rows
-- in free_seats; returns how many seats it deleted.
WITH gone AS (
	DELETE FROM seats
	WHERE show_id = $1::text AND id = ANY ($2::text[])
	RETURNING id, section, row, ord
), unlisted AS (
	DELETE FROM free_seats f
	USING gone g
	WHERE f.show_id = $1::text AND f.section = g.section AND f.row = g.row AND f.ord = g.ord AND f.id = g.id
)
SELECT count(*) FROM gone;
