-- Delete up to $2 (bigint) finished deliveries (succeeded or failed)
-- made before $1, the oldest first along webhook_deliveries_finished.
-- Rows another transaction has locked are skipped, so that concurrent
-- pruners delete disjoint sets.
DELETE FROM webhook_deliveries
WHERE seq IN (
	SELECT seq FROM webhook_deliveries
	WHERE status <> 'pending' AND created_at < $1::timestamptz
	ORDER BY created_at
	LIMIT $2::bigint
	FOR UPDATE SKIP LOCKED
);
