-- Create level (?1 sku, ?2 location) with on-hand quantity ?3, at version
-- 1, if it is missing (a missing level has version 0). Returns the new
-- level, or no row when the level exists.
INSERT INTO levels (sku, location, on_hand)
VALUES (?1, ?2, ?3)
ON CONFLICT (sku, location) DO NOTHING
RETURNING sku, location, on_hand, reserved, committed, version, fence;
