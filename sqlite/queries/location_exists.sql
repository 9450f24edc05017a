-- One row if location ?1 (id) exists, none if not.
SELECT 1 FROM locations WHERE id = ?1;
