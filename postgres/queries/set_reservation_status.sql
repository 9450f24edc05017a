-- Move reservation $1 from status $2 to status $3, setting its order id to
-- $4 unless $4 is empty.
UPDATE reservations
SET status = $3::text,
    order_id = CASE WHEN $4::text = '' THEN order_id ELSE $4::text END
WHERE id = $1::text AND status = $2::text;
