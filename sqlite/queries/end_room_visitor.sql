-- End the admission of visitor ?2 of room ?1 at ?3 (Unix microseconds),
-- if it is in force after ?3.
UPDATE room_visitors
SET expires_at = ?3
WHERE room_id = ?1 AND visitor_id = ?2 AND admitted_at IS NOT NULL AND expires_at > ?3;
