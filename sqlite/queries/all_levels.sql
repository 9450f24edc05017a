-- Every level, in key order.
SELECT sku, location, on_hand, reserved, committed, version, fence
FROM levels
ORDER BY sku, location;
