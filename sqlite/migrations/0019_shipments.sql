-- Shipments: the parts of an order that left (stockade.Shipment). An
-- order's shipped column sums them per level, as JSON allocations in key
-- order ('[]' for none); what it still commits is its allocations less
-- that. An order fulfilled before shipments existed shipped everything
-- in one go, so it counts its allocations as shipped, with no shipment
-- row. Times are INTEGER Unix microseconds, UTC.
ALTER TABLE orders ADD COLUMN shipped TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(shipped));

UPDATE orders SET shipped = allocations WHERE status = 'fulfilled';

-- One row per shipment. lines are the allocations it took (JSON, in key
-- order); order_version is the version the order reached with it.
CREATE TABLE shipments (
	id            TEXT    PRIMARY KEY,
	order_id      TEXT    NOT NULL REFERENCES orders (id),
	created_at    INTEGER NOT NULL,
	lines         TEXT    NOT NULL CHECK (json_valid(lines)),
	order_version INTEGER NOT NULL CHECK (order_version >= 1),
	metadata      TEXT    NOT NULL DEFAULT '{}'
) STRICT;

-- An order's shipments, newest first.
CREATE INDEX shipments_order_created ON shipments (order_id, created_at, id);
