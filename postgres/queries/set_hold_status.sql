-- Move the holds $3 (text[], distinct ids) from status $1 to status $2,
-- each setting its booking id to the one at its place in $4 (text[])
-- unless that is empty, and counting the change in its version.
UPDATE holds AS h
SET status = $2::text,
    version = h.version + 1,
    booking_id = CASE WHEN m.booking_id = '' THEN h.booking_id ELSE m.booking_id END
FROM unnest($3::text[], $4::text[]) AS m (id, booking_id)
WHERE h.id = m.id AND h.status = $1::text
