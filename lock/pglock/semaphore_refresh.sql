-- Extend entry $2 (bigint arrival) of key $1 (text), owned by $3
-- (bigint), to live $4 ms (bigint) from now, if it has not expired; and
-- delete the key's expired entries.
-- Deleting entries notifies channel $5 (text) if an entry arrived after
-- them: it may now hold.
-- Returns whether the entry was extended, and how many notifications
-- were sent.
WITH expired AS (
    DELETE FROM __TABLE__
    WHERE key = $1 AND expires_at <= now()
    RETURNING arrival
), kept AS (
    UPDATE __TABLE__
    SET expires_at = now() + $4::bigint * interval '1 millisecond'
    WHERE key = $1 AND arrival = $2 AND owner = $3 AND expires_at > now()
    RETURNING arrival
), woken AS (
    SELECT pg_notify($5, '')
    FROM (SELECT min(arrival) AS first FROM expired) AS gone
    WHERE EXISTS (SELECT FROM __TABLE__
                  WHERE key = $1 AND arrival > gone.first AND expires_at > now())
)
SELECT EXISTS (SELECT FROM kept), (SELECT count(*) FROM woken);
