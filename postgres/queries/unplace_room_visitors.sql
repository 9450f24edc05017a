-- Take their positions from the visitors of room $1 (id): each is
-- waiting for a draw again, with the draw it has.
UPDATE room_visitors SET position = 0 WHERE room_id = $1::text AND position > 0;
