-- A waiter's check: whether entry $2 (bigint arrival) of key $1 (text),
-- owned by $3 (bigint), holds its permits now, after deleting the key's
-- expired entries. A holding entry then lives for $4 ms (bigint, the
-- TTL), a waiting one for $5 ms (bigint) more: a waiter that stops
-- checking is dropped from the queue.
-- Deleting entries notifies channel $6 (text) if an entry arrived after
-- them: it may now hold.
-- Returns whether the entry holds (NULL when it is gone: it expired); the
-- milliseconds until the first live entry ahead of it expires (NULL if
-- none); and how many notifications were sent.
WITH expired AS (
    DELETE FROM __TABLE__
    WHERE key = $1 AND expires_at <= now()
    RETURNING arrival
), mine AS (
    SELECT n, "limit"
    FROM __TABLE__
    WHERE key = $1 AND arrival = $2 AND owner = $3 AND expires_at > now()
), ahead AS (
    SELECT coalesce(sum(n), 0) AS used, min(expires_at) AS next_expiry
    FROM __TABLE__
    WHERE key = $1 AND arrival < $2 AND expires_at > now()
), decided AS (
    SELECT used + n <= "limit" AS granted, next_expiry
    FROM mine, ahead
), kept AS (
    UPDATE __TABLE__
    SET expires_at = now() + CASE WHEN granted THEN $4::bigint ELSE $5::bigint END * interval '1 millisecond'
    FROM decided
    WHERE key = $1 AND arrival = $2
    RETURNING granted
), woken AS (
    SELECT pg_notify($6, '')
    FROM (SELECT min(arrival) AS first FROM expired) AS gone
    WHERE EXISTS (SELECT FROM __TABLE__
                  WHERE key = $1 AND arrival > gone.first AND expires_at > now())
)
SELECT (SELECT granted FROM kept),
       (SELECT extract(epoch FROM next_expiry - now())::float8 * 1000 FROM decided),
       (SELECT count(*) FROM woken);
