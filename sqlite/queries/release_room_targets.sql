-- Room ?1 (id) lets its targets go.
DELETE FROM room_targets
WHERE room_id = ?1;
