-- How many seats of event ?1 are in each status, by section and category,
-- in that order (byte order each, statuses too).
SELECT section, category, status, count(*)
FROM seats
WHERE show_id = ?1
GROUP BY section, category, status
ORDER BY section, category, status;
