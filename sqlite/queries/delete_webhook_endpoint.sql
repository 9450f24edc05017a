-- Delete webhook endpoint ?1 (id); the store deletes its deliveries first
-- (delete_webhook_deliveries.sql).
DELETE FROM webhook_endpoints WHERE id = ?1;
