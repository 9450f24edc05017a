-- Delete the deliveries of webhook endpoint ?1 (id).
DELETE FROM webhook_deliveries WHERE endpoint_id = ?1;
