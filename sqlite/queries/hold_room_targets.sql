-- Room ?1 (id) holds the targets ?2 (a JSON array of text). A target that
-- a room holds already is a primary key violation.
INSERT INTO room_targets (target, room_id)
SELECT value, ?1
FROM json_each(?2);
