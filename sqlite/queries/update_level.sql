-- Add (?3 on_hand, ?4 reserved, ?5 committed) to level (?1 sku,
-- ?2 location) and bump its version, if nothing would go below zero, if ?6
-- (a fencing token, 0 for none) is at least the level's fence, which then
-- becomes ?6, and if ?7 is NULL or the level's version.
--
-- Check and write are one statement: the WHERE clause holds every
-- condition, so no row returned means refused and nothing changed.
UPDATE levels
SET on_hand   = on_hand + ?3,
    reserved  = reserved + ?4,
    committed = committed + ?5,
    version   = version + 1,
    fence     = max(fence, ?6)
WHERE sku = ?1 AND location = ?2
  AND on_hand + ?3 >= 0
  AND reserved + ?4 >= 0
  AND committed + ?5 >= 0
  AND (on_hand + ?3) - (reserved + ?4) - (committed + ?5) >= 0
  AND (?6 = 0 OR fence <= ?6)
  AND (?7 IS NULL OR version = ?7)
RETURNING sku, location, on_hand, reserved, committed, version, fence;
