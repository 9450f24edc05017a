-- The admissions of room $1 (id) in force at $2: the visitors admitted
-- whose admission ends after $2, from room_visitors_admitted, and of them
-- those not used.
SELECT count(*), count(*) FILTER (WHERE used_at IS NULL)
FROM room_visitors
WHERE room_id = $1::text AND admitted_at IS NOT NULL AND expires_at > $2::timestamptz;
