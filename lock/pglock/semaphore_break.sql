-- Break semaphore key $1 (text): delete the entries that hold its permits
-- by the grant rule (see semaphore_inspect.sql), and its expired entries,
-- and notify channel $2 (text) if entries wait: they may now hold.
-- Returns the key's live entries as they were, as semaphore_inspect.sql
-- does.
WITH live AS (
    SELECT arrival, n, "limit", expires_at,
           sum(n) OVER (ORDER BY arrival) <= "limit" AS holds
    FROM __TABLE__
    WHERE key = $1 AND expires_at > now()
), gone AS (
    DELETE FROM __TABLE__
    WHERE key = $1
      AND (expires_at <= now() OR arrival IN (SELECT arrival FROM live WHERE holds))
), woken AS (
    SELECT pg_notify($2, '')
    WHERE EXISTS (SELECT FROM live WHERE NOT holds)
)
SELECT $1::text, arrival, n, "limit", expires_at, holds
-- Joined, so that the notification is sent: a WITH query that nothing
-- refers to is not run.
FROM live, (SELECT count(*) FROM woken) AS notified
ORDER BY arrival;
