-- Per level, the units that records hold: reserved, the allocations of
-- held reservations; committed, those of committed orders less what they
-- have shipped. Levels whose units are all shipped are left out.
SELECT sku, location, sum(reserved)::bigint, sum(committed)::bigint
FROM (
	SELECT a.sku, a.location, a.quantity AS reserved, 0::bigint AS committed
	FROM reservation_allocations AS a
	JOIN reservations AS r ON r.id = a.reservation_id
	WHERE r.status = 'held'
	UNION ALL
	SELECT a.sku, a.location, 0, a.quantity
	FROM orders AS o,
	     jsonb_to_recordset(CASE WHEN jsonb_typeof(o.allocations) = 'array' THEN o.allocations ELSE '[]' END)
	         AS a (sku text, location text, quantity bigint)
	WHERE o.status = 'committed'
	UNION ALL
	SELECT s.sku, s.location, 0, -s.quantity
	FROM orders AS o,
	     jsonb_to_recordset(CASE WHEN jsonb_typeof(o.shipped) = 'array' THEN o.shipped ELSE '[]' END)
	         AS s (sku text, location text, quantity bigint)
	WHERE o.status = 'committed'
) AS held
GROUP BY sku, location
HAVING sum(reserved) <> 0 OR sum(committed) <> 0;
