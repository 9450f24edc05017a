-- Add to free_seats the seats $2 (text[]) of event $1 that are free, as
-- seats has them: after SeatPut wrote them.
INSERT INTO free_seats (show_id, section, row, ord, id)
SELECT show_id, section, row, ord, id
FROM seats
WHERE show_id = $1::text AND id = ANY ($2::text[]) AND status = 'free';
