-- Delete entry $2 (bigint arrival) of key $1 (text), owned by $3
-- (bigint), whether it holds or waits, and the key's expired entries.
-- Deleting entries notifies channel $4 (text) if an entry arrived after
-- them: it may now hold.
-- Returns whether the entry was deleted before it expired (false: it was
-- gone already), and how many notifications were sent.
WITH gone AS (
    DELETE FROM __TABLE__
    WHERE key = $1 AND (expires_at <= now() OR (arrival = $2 AND owner = $3))
    RETURNING arrival, owner, expires_at
), woken AS (
    SELECT pg_notify($4, '')
    FROM (SELECT min(arrival) AS first FROM gone) AS g
    WHERE EXISTS (SELECT FROM __TABLE__
                  WHERE key = $1 AND arrival > g.first AND expires_at > now())
)
SELECT EXISTS (SELECT FROM gone WHERE arrival = $2 AND owner = $3 AND expires_at > now()),
       (SELECT count(*) FROM woken);
