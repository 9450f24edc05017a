-- Revoke API key ?1 (id) at ?2 (Unix microseconds), if it is live.
UPDATE api_keys SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL;
