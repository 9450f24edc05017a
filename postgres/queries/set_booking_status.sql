-- Move booking $1 from status $2 to status $3.
UPDATE bookings
SET status = $3::text
WHERE id = $1::text AND status = $2::text;
