-- Set used_at to ?3 for the visitors of room ?1 (id) whose ids are in ?2
-- (a JSON array of text) and that have none.
UPDATE room_visitors
SET used_at = ?3
WHERE room_id = ?1 AND visitor_id IN (SELECT value FROM json_each(?2)) AND used_at IS NULL;
