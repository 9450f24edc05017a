-- The levels among the keys $1 (text[] of SKUs) and $2 (text[] of
-- locations, pairwise with $1), in key order. With FOR UPDATE appended,
-- the rows are locked in that order: the lock sits above the sort.
SELECT sku, location, on_hand, reserved, committed, version, fence
FROM levels
WHERE (sku, location) IN (SELECT * FROM unnest($1::text[], $2::text[]))
ORDER BY sku, location
