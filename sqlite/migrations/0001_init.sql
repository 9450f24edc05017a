-- The stockade schema. Times are INTEGER Unix microseconds, UTC. Text sorts
-- with the default BINARY collation, which is byte order: the order of
-- Key.Compare, in which every strategy takes its locks.

CREATE TABLE locations (
	id   TEXT PRIMARY KEY,
	name TEXT NOT NULL,
	lat  REAL NOT NULL,
	lon  REAL NOT NULL
) STRICT;

-- One row per SKU per location. The CHECKs are the last line of defence:
-- UpdateLevel's WHERE refuses before they fire.
CREATE TABLE levels (
	sku       TEXT    NOT NULL,
	location  TEXT    NOT NULL REFERENCES locations (id),
	on_hand   INTEGER NOT NULL DEFAULT 0 CHECK (on_hand >= 0),
	reserved  INTEGER NOT NULL DEFAULT 0 CHECK (reserved >= 0),
	committed INTEGER NOT NULL DEFAULT 0 CHECK (committed >= 0),
	version   INTEGER NOT NULL DEFAULT 1,
	fence     INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (sku, location),
	CONSTRAINT available_not_negative CHECK (on_hand - reserved - committed >= 0)
) STRICT, WITHOUT ROWID;

-- The ledger: every change to a level's counters, written in the same
-- transaction. AUTOINCREMENT keeps ids increasing and never reused.
CREATE TABLE movements (
	id        INTEGER PRIMARY KEY AUTOINCREMENT,
	at        INTEGER NOT NULL,
	sku       TEXT    NOT NULL,
	location  TEXT    NOT NULL,
	kind      TEXT    NOT NULL,
	on_hand   INTEGER NOT NULL,
	reserved  INTEGER NOT NULL,
	committed INTEGER NOT NULL,
	ref       TEXT    NOT NULL DEFAULT '',
	reason    TEXT    NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX movements_level ON movements (sku, location, id);
CREATE INDEX movements_location ON movements (location, id);
CREATE INDEX movements_ref ON movements (ref, id);

CREATE TRIGGER movements_no_update BEFORE UPDATE ON movements
BEGIN
	SELECT RAISE(ABORT, 'movements are append-only');
END;

CREATE TRIGGER movements_no_delete BEFORE DELETE ON movements
BEGIN
	SELECT RAISE(ABORT, 'movements are append-only');
END;

-- Lines and allocations are JSON arrays, read and written whole.
CREATE TABLE reservations (
	id          TEXT    PRIMARY KEY,
	status      TEXT    NOT NULL CHECK (status IN ('held', 'confirmed', 'released', 'expired')),
	created_at  INTEGER NOT NULL,
	expires_at  INTEGER NOT NULL,
	order_id    TEXT    NOT NULL DEFAULT '',
	lines       TEXT    NOT NULL CHECK (json_valid(lines)),
	allocations TEXT    NOT NULL CHECK (json_valid(allocations))
) STRICT;

-- The sweeper's scan: held reservations by expiry.
CREATE INDEX reservations_held_expiry ON reservations (expires_at, id) WHERE status = 'held';

-- The levels each reservation draws on, for the sweeper's key filter.
CREATE TABLE reservation_allocations (
	reservation_id TEXT NOT NULL REFERENCES reservations (id),
	sku            TEXT NOT NULL,
	location       TEXT NOT NULL,
	PRIMARY KEY (reservation_id, sku, location)
) STRICT, WITHOUT ROWID;

CREATE INDEX reservation_allocations_level ON reservation_allocations (sku, location);

CREATE TABLE orders (
	id             TEXT    PRIMARY KEY,
	status         TEXT    NOT NULL CHECK (status IN ('committed', 'cancelled', 'fulfilled')),
	created_at     INTEGER NOT NULL,
	reservation_id TEXT    NOT NULL DEFAULT '',
	lines          TEXT    NOT NULL CHECK (json_valid(lines)),
	allocations    TEXT    NOT NULL CHECK (json_valid(allocations))
) STRICT;

-- What the service remembers of requests that carried an Idempotency-Key.
CREATE TABLE idempotency (
	key          TEXT    PRIMARY KEY,
	request_hash TEXT    NOT NULL,
	state        TEXT    NOT NULL CHECK (state IN ('in_flight', 'done')),
	status       INTEGER NOT NULL DEFAULT 0,
	body         BLOB,
	created_at   INTEGER NOT NULL
) STRICT;

CREATE INDEX idempotency_created_at ON idempotency (created_at);
