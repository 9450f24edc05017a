-- Move order $1 from status $2 to status $3, one version on.
UPDATE orders SET status = $3::text, version = version + 1 WHERE id = $1::text AND status = $2::text;
