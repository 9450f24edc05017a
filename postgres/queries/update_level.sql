-- Add ($3 on_hand, $4 reserved, $5 committed) to level ($1 sku,
-- $2 location) and bump its version, if nothing would go below zero, if
-- $6 (bigint) is NULL or the level's version, and if $7 (a fencing token,
-- 0 for none) is at least the level's fence, which then becomes $7.
--
-- Check and write are one statement: under READ COMMITTED, a concurrent
-- writer of the row makes this one wait and then re-evaluate the WHERE
-- clause on the row it wrote. No row returned means nothing changed.
UPDATE levels
SET on_hand   = on_hand + $3::bigint,
    reserved  = reserved + $4::bigint,
    committed = committed + $5::bigint,
    version   = version + 1,
    fence     = CASE WHEN $7::bigint = 0 THEN fence ELSE $7::bigint END
WHERE sku = $1::text AND location = $2::text
  AND on_hand + $3::bigint >= 0
  AND reserved + $4::bigint >= 0
  AND committed + $5::bigint >= 0
  AND (on_hand + $3::bigint) - (reserved + $4::bigint) - (committed + $5::bigint) >= 0
  AND ($6::bigint IS NULL OR version = $6::bigint)
  AND ($7::bigint = 0 OR fence <= $7::bigint)
RETURNING sku, location, on_hand, reserved, committed, version, fence;
