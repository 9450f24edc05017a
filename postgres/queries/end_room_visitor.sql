-- End the admission of visitor $2 of room $1 at $3, if it is in force
-- after $3.
UPDATE room_visitors
SET expires_at = $3::timestamptz
WHERE room_id = $1::text AND visitor_id = $2::text AND admitted_at IS NOT NULL AND expires_at > $3::timestamptz;
