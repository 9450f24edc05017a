-- Delete the events written before $1 among the oldest $2 (bigint) by
-- position, except those that a relay has yet to publish (after its
-- checkpoint). Positions follow time closely, so these are the oldest
-- events; reading them along the primary key bounds the work however many
-- events are younger, and a run that finds none old enough deletes
-- nothing. Rows another transaction has locked (a concurrent prune) are
-- skipped, so that concurrent pruners delete disjoint sets.
DELETE FROM events
WHERE (xid, seq) IN (
	SELECT xid, seq FROM events
	ORDER BY xid, seq
	LIMIT $2::bigint
	FOR UPDATE SKIP LOCKED
) AND at < $1::timestamptz
  AND NOT EXISTS (SELECT 1 FROM relay_checkpoints c WHERE (c.xid, c.seq) < (events.xid, events.seq));
