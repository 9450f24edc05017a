-- The sum of the movements of every level that has any.
SELECT sku, location,
       sum(on_hand)::bigint, sum(reserved)::bigint, sum(committed)::bigint
FROM movements
GROUP BY sku, location;
