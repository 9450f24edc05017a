-- Add deltas to levels, given as parallel arrays: $1 sku, $2 location,
-- $3 on_hand, $4 reserved, $5 committed (distinct keys), bumping each
-- level's version, where nothing would go below zero; returns the levels
-- changed. The rows are locked in the order the join meets them: callers
-- lock them first (Levels with lock, in key order).
UPDATE levels AS l
SET on_hand   = l.on_hand + c.on_hand,
    reserved  = l.reserved + c.reserved,
    committed = l.committed + c.committed,
    version   = l.version + 1
FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[])
     AS c (sku, location, on_hand, reserved, committed)
WHERE l.sku = c.sku AND l.location = c.location
  AND l.on_hand + c.on_hand >= 0
  AND l.reserved + c.reserved >= 0
  AND l.committed + c.committed >= 0
  AND (l.on_hand + c.on_hand) - (l.reserved + c.reserved) - (l.committed + c.committed) >= 0
RETURNING l.sku, l.location, l.on_hand, l.reserved, l.committed, l.version, l.fence;
