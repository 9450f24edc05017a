-- A location may have no place of its own: a virtual warehouse, a
-- drop-shipper. It is stored with placed false and lat and lon 0, and the
-- engine allocates orders with a ship-to point from it only after every
-- placed one. Rows from before stay placed, where they were.
ALTER TABLE locations
	ADD COLUMN placed boolean NOT NULL DEFAULT true,
	ADD CONSTRAINT locations_unplaced_check CHECK (placed OR (lat = 0 AND lon = 0));
