-- Admit the visitors of room ?1 (id) at positions ?2 + 1 through ?3: set
-- their admitted_at to ?4 and their expires_at to ?5. position > 0 lets
-- the planner read the range from room_visitors_position.
UPDATE room_visitors
SET admitted_at = ?4, expires_at = ?5
WHERE room_id = ?1 AND position > 0 AND position > ?2 AND position <= ?3;
