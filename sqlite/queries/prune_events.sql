-- Delete the events written before ?1 (Unix microseconds) among the
-- oldest ?2 by position, except those that a relay has yet to publish
-- (after its checkpoint). Positions follow time closely, so these are the
-- oldest events; reading them along the primary key bounds the work
-- however many events are younger, and a run that finds none old enough
-- deletes nothing.
DELETE FROM events
WHERE seq IN (SELECT seq FROM events ORDER BY seq LIMIT ?2) AND at < ?1
  AND NOT EXISTS (SELECT 1 FROM relay_checkpoints c WHERE c.seq < events.seq);
