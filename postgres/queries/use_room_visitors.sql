-- Set used_at to $3 for the visitors of room $1 (id) whose ids are in $2
-- and that have none.
UPDATE room_visitors
SET used_at = $3::timestamptz
WHERE room_id = $1::text AND visitor_id = ANY ($2::text[]) AND used_at IS NULL;
