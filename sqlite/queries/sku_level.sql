-- The levels of SKU ?1, by location: sku_levels.sql for one SKU, a range
-- of the primary key.
SELECT sku, location, on_hand, reserved, committed, version, fence
FROM levels
WHERE sku = ?1
ORDER BY location;
