-- Set the expiry of hold ?1 (id) to ?2 (Unix microseconds) if it is held,
-- counting the change in its version.
UPDATE holds
SET expires_at = ?2, version = version + 1
WHERE id = ?1 AND status = 'held';
