-- Insert webhook endpoint ?1 (id) with URL ?2, event types ?3 (a JSON
-- array), description ?4, disabled ?5 (0 or 1) and its reason ?6, secret
-- ?7, previous secret ?8 ('' for none) until ?9 (NULL for none), created
-- at ?10, updated at ?11, version ?12. An id in use is a constraint
-- violation.
INSERT INTO webhook_endpoints (id, url, events, description, disabled, disabled_reason, secret,
	previous_secret, previous_expires_at, created_at, updated_at, version)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12);
