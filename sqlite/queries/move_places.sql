-- Add ?3 to the held and ?4 to the booked places of area ?2 of event ?1,
-- if neither goes below zero and their sum stays within the capacity.
-- Returns the area after the change; no row if it is missing or refused.
UPDATE areas
SET held = held + ?3, booked = booked + ?4
WHERE show_id = ?1 AND name = ?2
  AND held + ?3 >= 0 AND booked + ?4 >= 0
  AND held + ?3 + booked + ?4 <= capacity
RETURNING name, category, capacity, held, booked;
