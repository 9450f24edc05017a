-- Write ?2 status, ?3 shipped (JSON text) and ?4 version over order ?1
-- (id) if its version is ?4 - 1.
UPDATE orders SET status = ?2, shipped = ?3, version = ?4
WHERE id = ?1 AND version = ?4 - 1;
