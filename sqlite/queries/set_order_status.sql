-- Move order ?1 (id) from status ?2 to status ?3, one version on.
UPDATE orders SET status = ?3, version = version + 1 WHERE id = ?1 AND status = ?2;
