-- Set the on-hand quantity of level (?1 sku, ?2 location) to ?3 and bump
-- its version, if its version is ?4. Returns the level after the write, or
-- no row when the level is missing or at another version. The CHECK on
-- available fails the statement if ?3 is less than reserved + committed.
UPDATE levels
SET on_hand = ?3, version = version + 1
WHERE sku = ?1 AND location = ?2 AND version = ?4
RETURNING sku, location, on_hand, reserved, committed, version, fence;
