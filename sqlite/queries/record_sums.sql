-- Per level, the units that records hold: reserved, the allocations of
-- held reservations; committed, those of committed orders less what they
-- have shipped; levels whose units are all shipped are left out.
-- Allocations are read from the records' JSON.
SELECT sku, location, sum(reserved), sum(committed)
FROM (
	SELECT a.value ->> 'sku' AS sku, a.value ->> 'location' AS location,
	       a.value ->> 'quantity' AS reserved, 0 AS committed
	FROM reservations AS r, json_each(r.allocations) AS a
	WHERE r.status = 'held' AND a.type = 'object'
	UNION ALL
	SELECT a.value ->> 'sku', a.value ->> 'location', 0, a.value ->> 'quantity'
	FROM orders AS o, json_each(o.allocations) AS a
	WHERE o.status = 'committed' AND a.type = 'object'
	UNION ALL
	SELECT s.value ->> 'sku', s.value ->> 'location', 0, -(s.value ->> 'quantity')
	FROM orders AS o, json_each(o.shipped) AS s
	WHERE o.status = 'committed' AND s.type = 'object'
)
GROUP BY sku, location
HAVING sum(reserved) <> 0 OR sum(committed) <> 0;
