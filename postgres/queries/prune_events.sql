-- Delete up to $2 (bigint) events written before $1, oldest first, events
-- written at the same time in position order. Rows another transaction
-- has locked (a concurrent prune) are skipped, so that concurrent pruners
-- delete disjoint sets.
DELETE FROM events
WHERE (xid, seq) IN (
	SELECT xid, seq FROM events
	WHERE at < $1::timestamptz
	ORDER BY at, xid, seq
	LIMIT $2::bigint
	FOR UPDATE SKIP LOCKED
);
