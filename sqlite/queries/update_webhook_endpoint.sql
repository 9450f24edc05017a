-- Write ?2 url, ?3 events, ?4 description, ?5 disabled, ?6 its reason, ?7
-- secret, ?8 previous secret, ?9 its end, ?10 updated_at and ?11 version
-- over webhook endpoint ?1 (id) if its version is ?11 - 1.
UPDATE webhook_endpoints
SET url = ?2, events = ?3, description = ?4, disabled = ?5, disabled_reason = ?6, secret = ?7,
    previous_secret = ?8, previous_expires_at = ?9, updated_at = ?10, version = ?11
WHERE id = ?1 AND version = ?11 - 1;
