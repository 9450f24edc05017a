-- The totals of the SKUs with a level, in SKU order: after ?1 ('' for
-- from the start), from ?2 and before ?3 ('' for no end), at most ?4.
SELECT sku, SUM(on_hand), SUM(reserved), SUM(committed)
FROM levels
WHERE sku > ?1 AND sku >= ?2 AND (?3 = '' OR sku < ?3)
GROUP BY sku
ORDER BY sku
LIMIT ?4;
