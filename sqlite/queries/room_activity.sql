-- The admissions of room ?1 (id) in force at ?2: the visitors admitted
-- whose admission ends after ?2, and of them those not used, read from
-- the covering index room_visitors_admitted.
SELECT count(*), count(*) FILTER (WHERE used_at IS NULL)
FROM room_visitors
WHERE room_id = ?1 AND admitted_at IS NOT NULL AND expires_at > ?2;
