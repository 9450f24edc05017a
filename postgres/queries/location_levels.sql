-- The levels at location $1, in SKU order: after $2 ('' for from the
-- start), from $3 and before $4 ('' for no end), at most $5. The index
-- levels_location serves the range and the order.
SELECT sku, location, on_hand, reserved, committed, version, fence
FROM levels
WHERE location = $1::text AND sku > $2 AND sku >= $3 AND ($4 = '' OR sku < $4)
ORDER BY sku
LIMIT $5;
