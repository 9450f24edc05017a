-- Room $1 (id) holds the targets $2. A target that a room holds already
-- is a unique violation; one that a transaction in progress is inserting
-- waits for it.
INSERT INTO room_targets (target, room_id)
SELECT t, $1::text
FROM unnest($2::text[]) AS t;
