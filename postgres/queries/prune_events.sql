-- Delete the events written before $1 among the oldest $2 (bigint) by
-- position, except those that a relay has yet to publish (after its
-- checkpoint). Positions follow time closely, so these are the oldest
-- events; reading them along the primary key bounds the work however many
-- events are younger. Only those old enough are locked, so that a run
-- that finds none (every sweep while the events are younger than the
-- retention) reads the oldest $2 and writes nothing; locking them all
-- took 16 ms at 1,000. Rows another transaction has locked (a concurrent
-- prune) are skipped, so that concurrent pruners delete disjoint sets.
DELETE FROM events
WHERE (xid, seq) IN (
	SELECT xid, seq FROM events
	WHERE (xid, seq) IN (SELECT xid, seq FROM events ORDER BY xid, seq LIMIT $2::bigint)
	  AND at < $1::timestamptz
	FOR UPDATE SKIP LOCKED
) AND NOT EXISTS (SELECT 1 FROM relay_checkpoints c WHERE (c.xid, c.seq) < (events.xid, events.seq));
