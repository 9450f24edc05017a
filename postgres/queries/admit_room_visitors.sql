-- Admit the visitors of room $1 (id) at positions $2 + 1 through $3: set
-- their admitted_at to $4 and their expires_at to $5. position > 0 lets a
-- generic plan read the range from room_visitors_position.
UPDATE room_visitors
SET admitted_at = $4::timestamptz, expires_at = $5::timestamptz
WHERE room_id = $1::text AND position > 0 AND position > $2::bigint AND position <= $3::bigint;
