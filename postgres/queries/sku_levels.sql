-- The levels of SKU $1 (text), in location order; FOR UPDATE may be
-- appended, locking them in that order.
SELECT sku, location, on_hand, reserved, committed, version, fence
FROM levels
WHERE sku = $1
ORDER BY location
