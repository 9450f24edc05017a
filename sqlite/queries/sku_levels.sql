-- The levels of the SKUs ?1 (a JSON array of text), in key order.
SELECT sku, location, on_hand, reserved, committed, version, fence
FROM levels
WHERE sku IN (SELECT value FROM json_each(?1))
ORDER BY sku, location;
