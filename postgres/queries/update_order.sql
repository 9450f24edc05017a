-- Write $2 status, $3 shipped (JSON text) and $4 version over order $1
-- (id) if its version is $4 - 1.
UPDATE orders SET status = $2::text, shipped = $3::jsonb, version = $4::bigint
WHERE id = $1::text AND version = $4::bigint - 1;
