-- The levels of the SKUs $1 (text[]), in key order; FOR UPDATE may be
-- appended, locking them in that order.
SELECT sku, location, on_hand, reserved, committed, version, fence
FROM levels
WHERE sku = ANY ($1::text[])
ORDER BY sku, location
