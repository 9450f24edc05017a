-- Shipments: the parts of an order that left (stockade.Shipment). An
-- order's shipped column sums them per level, as JSON allocations in key
-- order ('[]' for none); what it still commits is its allocations less
-- that. An order fulfilled before shipments existed shipped everything
-- in one go, so it counts its allocations as shipped, with no shipment
-- row.
ALTER TABLE orders ADD COLUMN shipped jsonb NOT NULL DEFAULT '[]';

UPDATE orders SET shipped = allocations WHERE status = 'fulfilled';

-- One row per shipment. lines are the allocations it took (JSON, in key
-- order); order_version is the version the order reached with it.
CREATE TABLE shipments (
	id            text COLLATE "C" PRIMARY KEY,
	order_id      text COLLATE "C" NOT NULL REFERENCES orders (id),
	created_at    timestamptz NOT NULL,
	lines         jsonb NOT NULL,
	order_version bigint NOT NULL CHECK (order_version >= 1),
	metadata      jsonb NOT NULL DEFAULT '{}'
);

-- An order's shipments, newest first.
CREATE INDEX shipments_order_created ON shipments (order_id, created_at, id);
