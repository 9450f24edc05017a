-- Add $3 to held and $4 to booked of area $2 of event $1, where neither
-- goes below zero and held + booked stays within the capacity; returns the
-- area changed.
UPDATE areas
SET held = held + $3::bigint,
    booked = booked + $4::bigint
WHERE show_id = $1::text AND name = $2::text
  AND held + $3::bigint >= 0
  AND booked + $4::bigint >= 0
  AND held + $3::bigint + booked + $4::bigint <= capacity
RETURNING name, category, capacity, held, booked;
