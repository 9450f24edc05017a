-- Delete webhook endpoint $1 (id); its deliveries go with it (ON DELETE
-- CASCADE).
DELETE FROM webhook_endpoints WHERE id = $1::text;
