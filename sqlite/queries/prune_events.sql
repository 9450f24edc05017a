-- Delete up to ?2 events written before ?1 (at, microseconds), oldest
-- first, events written at the same time in position order.
DELETE FROM events
WHERE seq IN (SELECT seq FROM events WHERE at < ?1 ORDER BY at, seq LIMIT ?2);
