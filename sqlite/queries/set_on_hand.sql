-- Set the on-hand quantity of level (?1 sku, ?2 location) to ?3, creating
-- the level at version 1 if it is missing and bumping its version if not.
-- Returns the level after the write. The caller has checked that location
-- ?2 exists; the CHECK on available fails the statement if ?3 is less than
-- reserved + committed.
INSERT INTO levels (sku, location, on_hand)
VALUES (?1, ?2, ?3)
ON CONFLICT (sku, location) DO UPDATE
SET on_hand = excluded.on_hand, version = version + 1
RETURNING sku, location, on_hand, reserved, committed, version, fence;
