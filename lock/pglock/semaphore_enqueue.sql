-- Add an entry of $3 permits (integer) for key $1 (text) of limit $2
-- (integer), owned by $4 (bigint), after deleting the key's expired
-- entries. It holds its permits if those of the live entries, all of
-- which arrived before it, plus its own, fit the limit; it then lives for
-- $5 ms (bigint, the TTL), and else, as a waiter, for $6 ms (bigint). With
-- $6 NULL (a try) an entry that would wait is not added. Nothing is added
-- when the key's live entries have another limit.
-- Deleting entries notifies channel $7 (text) if an entry arrived after
-- them: it may now hold.
-- Returns the entry's arrival (NULL when not added); whether it holds; the
-- key's other limit (NULL if none); the milliseconds until the first live
-- entry expires (NULL if none); and how many notifications were sent.
WITH expired AS (
    DELETE FROM __TABLE__
    WHERE key = $1 AND expires_at <= now()
    RETURNING arrival
), live AS (
    SELECT coalesce(sum(n), 0) + $3::integer <= $2::integer AS granted,
           max("limit") FILTER (WHERE "limit" <> $2::integer) AS other_limit,
           min(expires_at) AS next_expiry,
           count(*) AS entries
    FROM __TABLE__
    WHERE key = $1 AND expires_at > now()
), entry AS (
    INSERT INTO __TABLE__ (key, n, "limit", owner, expires_at)
    SELECT $1, $3, $2, $4,
           now() + CASE WHEN granted THEN $5::bigint ELSE $6::bigint END * interval '1 millisecond'
    FROM live
    WHERE other_limit IS NULL AND (granted OR $6::bigint IS NOT NULL)
    RETURNING arrival
), woken AS (
    SELECT pg_notify($7, '')
    FROM (SELECT FROM expired LIMIT 1) AS any_expired, live
    WHERE live.entries > 0
)
SELECT (SELECT arrival FROM entry),
       granted,
       other_limit,
       extract(epoch FROM next_expiry - now())::float8 * 1000,
       (SELECT count(*) FROM woken)
FROM live;
