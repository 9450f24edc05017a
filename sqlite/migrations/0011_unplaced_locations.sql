-- A location may have no place of its own: a virtual warehouse, a
-- drop-shipper. It is stored with placed 0 and lat and lon 0, and the
-- engine allocates orders with a ship-to point from it only after every
-- placed one. Rows from before stay placed, where they were.
ALTER TABLE locations ADD COLUMN placed INTEGER NOT NULL DEFAULT 1
	CHECK (placed IN (0, 1) AND (placed = 1 OR (lat = 0 AND lon = 0)));
