-- Set the expiry of hold $1 to $2, if it is held, counting the change in
-- its version.
UPDATE holds
SET expires_at = $2::timestamptz, version = version + 1
WHERE id = $1::text AND status = 'held';
