-- The stockade schema. Identifiers (ids, SKUs, location ids) are text in the
-- "C" collation, so that ORDER BY sorts them byte-wise, as Go's string
-- comparison and stockade.Key.Compare do: the order in which rows are
-- locked is the one global order whatever the database's locale.

CREATE TABLE locations (
	id   text COLLATE "C" PRIMARY KEY,
	name text NOT NULL DEFAULT '',
	lat  double precision NOT NULL DEFAULT 0,
	lon  double precision NOT NULL DEFAULT 0
);

-- One row per SKU and location. The CHECK constraints are the invariant:
-- no counter below zero, and available = on_hand - reserved - committed
-- never below zero. Writes through the store never trip them (UpdateLevel
-- checks the same conditions in its WHERE clause); they catch everything
-- else. fence is a lock fencing token (a uint64 in Go), stored as bigint:
-- tokens at or above 2^63 are refused by the store.
CREATE TABLE levels (
	sku       text COLLATE "C" NOT NULL,
	location  text COLLATE "C" NOT NULL
		CONSTRAINT levels_location_fkey REFERENCES locations (id),
	on_hand   bigint NOT NULL DEFAULT 0 CONSTRAINT levels_on_hand_check CHECK (on_hand >= 0),
	reserved  bigint NOT NULL DEFAULT 0 CONSTRAINT levels_reserved_check CHECK (reserved >= 0),
	committed bigint NOT NULL DEFAULT 0 CONSTRAINT levels_committed_check CHECK (committed >= 0),
	version   bigint NOT NULL DEFAULT 1, -- a missing level counts as version 0
	fence     bigint NOT NULL DEFAULT 0 CONSTRAINT levels_fence_check CHECK (fence >= 0),
	PRIMARY KEY (sku, location),
	CONSTRAINT levels_available_check CHECK (on_hand - reserved - committed >= 0)
) WITH (fillfactor = 80); -- room on each page for HOT updates: no counter is indexed

-- The ledger: one row per change to a level, never updated nor deleted.
-- It has no foreign keys, so that appending takes no lock on anything
-- else; the sum of a level's rows is its counters.
CREATE TABLE movements (
	id        bigserial PRIMARY KEY,
	at        timestamptz NOT NULL DEFAULT now(),
	sku       text COLLATE "C" NOT NULL,
	location  text COLLATE "C" NOT NULL,
	kind      text NOT NULL,
	on_hand   bigint NOT NULL DEFAULT 0,
	reserved  bigint NOT NULL DEFAULT 0,
	committed bigint NOT NULL DEFAULT 0,
	ref       text COLLATE "C" NOT NULL DEFAULT '',
	reason    text NOT NULL DEFAULT ''
);

-- One index per filter of Movements: by level, by location, by ref.
CREATE INDEX movements_level ON movements (sku, location, id);
CREATE INDEX movements_location ON movements (location, id);
CREATE INDEX movements_ref ON movements (ref, id);

CREATE FUNCTION movements_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'movements is append-only: % refused', TG_OP
		USING ERRCODE = 'restrict_violation';
END
$$;

CREATE TRIGGER movements_append_only
	BEFORE UPDATE OR DELETE ON movements
	FOR EACH ROW EXECUTE FUNCTION movements_append_only();

-- Reservations keep their lines and allocations as JSON, read back whole;
-- reservation_allocations repeats the allocations as rows, so that the
-- expiry sweeper can find the reservations holding given levels.
CREATE TABLE reservations (
	id          text COLLATE "C" PRIMARY KEY,
	status      text NOT NULL CONSTRAINT reservations_status_check CHECK (status IN
		('held', 'confirmed', 'released', 'expired')),
	created_at  timestamptz NOT NULL,
	expires_at  timestamptz NOT NULL,
	order_id    text COLLATE "C" NOT NULL DEFAULT '',
	lines       jsonb NOT NULL,
	allocations jsonb NOT NULL
);

-- The sweeper's index: only held reservations can lapse.
CREATE INDEX reservations_held_expiry ON reservations (expires_at, id) WHERE status = 'held';

CREATE TABLE reservation_allocations (
	reservation_id text COLLATE "C" NOT NULL REFERENCES reservations (id) ON DELETE CASCADE,
	n              integer NOT NULL, -- position in the reservation's allocations, from 1
	sku            text COLLATE "C" NOT NULL,
	location       text COLLATE "C" NOT NULL,
	quantity       bigint NOT NULL,
	PRIMARY KEY (reservation_id, n)
);

CREATE INDEX reservation_allocations_level ON reservation_allocations (sku, location);

CREATE TABLE orders (
	id             text COLLATE "C" PRIMARY KEY,
	status         text NOT NULL CONSTRAINT orders_status_check CHECK (status IN
		('committed', 'cancelled', 'fulfilled')),
	created_at     timestamptz NOT NULL,
	reservation_id text COLLATE "C" NOT NULL DEFAULT '',
	lines          jsonb NOT NULL,
	allocations    jsonb NOT NULL
);

-- A reservation becomes at most one order.
CREATE UNIQUE INDEX orders_reservation ON orders (reservation_id) WHERE reservation_id <> '';

CREATE TABLE idempotency (
	key          text COLLATE "C" PRIMARY KEY,
	request_hash text NOT NULL,
	state        text NOT NULL CONSTRAINT idempotency_state_check CHECK (state IN ('in_flight', 'done')),
	status       integer NOT NULL DEFAULT 0,
	body         bytea, -- NULL for a nil body, so that nil and empty read back as they were
	created_at   timestamptz NOT NULL
);

CREATE INDEX idempotency_created_at ON idempotency (created_at);
