-- Delete the seats of event $1 with the ids $2 (text[]).
DELETE FROM seats
WHERE show_id = $1::text AND id = ANY ($2::text[]);
