-- Move hold $1 from status $2 to status $3, setting its booking id to $4
-- unless $4 is empty, and counting the change in its version.
UPDATE holds
SET status = $3::text,
    version = version + 1,
    booking_id = CASE WHEN $4::text = '' THEN booking_id ELSE $4::text END
WHERE id = $1::text AND status = $2::text;
