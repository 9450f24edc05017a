-- The levels among the keys ?1 (a JSON array of [sku, location] pairs), in
-- key order.
SELECT sku, location, on_hand, reserved, committed, version, fence
FROM levels
WHERE (sku, location) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?1))
ORDER BY sku, location;
