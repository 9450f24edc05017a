-- Delete up to ?2 finished deliveries (succeeded or failed) made before
-- ?1, the oldest first along webhook_deliveries_finished.
DELETE FROM webhook_deliveries
WHERE seq IN (
	SELECT seq FROM webhook_deliveries INDEXED BY webhook_deliveries_finished
	WHERE status <> 'pending' AND created_at < ?1
	ORDER BY created_at
	LIMIT ?2
);
