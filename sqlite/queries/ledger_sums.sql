-- The sum of the movements of every level that has any.
SELECT sku, location, sum(on_hand), sum(reserved), sum(committed)
FROM movements
GROUP BY sku, location;
