-- Move the holds of ?3 (a JSON array of [id, booking id] pairs, distinct
-- ids) from status ?1 to status ?2, each setting its booking id unless
-- the pair's is empty, and counting the change in its version.
UPDATE holds
SET status = ?2,
    version = holds.version + 1,
    booking_id = coalesce(nullif(m.booking_id, ''), holds.booking_id)
FROM (SELECT value ->> 0 AS id, value ->> 1 AS booking_id FROM json_each(?3)) AS m
WHERE holds.id = m.id AND holds.status = ?1;
