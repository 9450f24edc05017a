-- Bookings: events (shows) with seats and general-admission areas, the
-- holds that take them, the bookings that holds are confirmed into, and
-- the seat history. The table of events is shows: events is the outbox.
-- Times are INTEGER Unix microseconds, UTC; ids compare byte for byte
-- (BINARY), so ORDER BY is byte order, as for every other table. '' means
-- none for the text columns that may be empty (a seat's hold, a hold's
-- booking, an owner), as in reservations and orders.

-- An event's row. map is the seat map as it was given, JSON text
-- {"rows": [SeatRow…], "areas": [{"name", "category", "capacity"}…]},
-- read and written whole; the seats and areas it expands to, and their
-- current state, are the rows of seats and areas.
CREATE TABLE shows (
	id         TEXT    PRIMARY KEY,
	name       TEXT    NOT NULL,
	focal_x    REAL    NOT NULL,
	focal_y    REAL    NOT NULL,
	map        TEXT    NOT NULL CHECK (json_valid(map)),
	created_at INTEGER NOT NULL,
	version    INTEGER NOT NULL
) STRICT;

-- One row per seat. A held seat names its hold, a booked one its booking
-- (and the hold it was confirmed from); a free or blocked seat neither.
-- MoveSeats changes status, hold_id and booking_id in one conditional
-- UPDATE whose WHERE holds the move's conditions.
CREATE TABLE seats (
	show_id    TEXT    NOT NULL REFERENCES shows (id),
	id         TEXT    NOT NULL,
	section    TEXT    NOT NULL,
	"row"      TEXT    NOT NULL,
	label      TEXT    NOT NULL,
	ord        INTEGER NOT NULL,
	category   TEXT    NOT NULL DEFAULT '',
	accessible INTEGER NOT NULL DEFAULT 0 CHECK (accessible IN (0, 1)),
	x          REAL    NOT NULL,
	y          REAL    NOT NULL,
	status     TEXT    NOT NULL CHECK (status IN ('free', 'held', 'booked', 'blocked')),
	hold_id    TEXT    NOT NULL DEFAULT '',
	booking_id TEXT    NOT NULL DEFAULT '',
	PRIMARY KEY (show_id, id)
) STRICT, WITHOUT ROWID;

-- Seat order (Seat.Compare): the whole event's seats, a section's, and a
-- page after a cursor are ranges of it. Being an index of a WITHOUT ROWID
-- table, it ends in the primary key, so ties on ord are broken by id.
CREATE INDEX seats_order ON seats (show_id, section, "row", ord);

-- The free seats of an event, in seat order, with their ids: every hold
-- of best-available seats reads them (FreeSeatIDs), from this index
-- alone.
CREATE INDEX seats_free ON seats (show_id, section, "row", ord, id) WHERE status = 'free';

-- General-admission areas and the places live holds and bookings have.
-- The CHECKs are the last line of defence: MovePlaces's WHERE refuses
-- before they fire, and PutAreas relies on the last to refuse a capacity
-- below what is taken.
CREATE TABLE areas (
	show_id  TEXT    NOT NULL REFERENCES shows (id),
	name     TEXT    NOT NULL,
	category TEXT    NOT NULL DEFAULT '',
	capacity INTEGER NOT NULL CHECK (capacity >= 0),
	held     INTEGER NOT NULL DEFAULT 0 CHECK (held >= 0),
	booked   INTEGER NOT NULL DEFAULT 0 CHECK (booked >= 0),
	PRIMARY KEY (show_id, name),
	CONSTRAINT areas_within_capacity CHECK (held + booked <= capacity)
) STRICT, WITHOUT ROWID;

-- seats is a JSON array of seat ids, places one of {"area", "quantity"},
-- read and written whole.
CREATE TABLE holds (
	id         TEXT    PRIMARY KEY,
	show_id    TEXT    NOT NULL,
	status     TEXT    NOT NULL CHECK (status IN ('held', 'confirmed', 'released', 'expired')),
	seats      TEXT    NOT NULL CHECK (json_valid(seats)),
	places     TEXT    NOT NULL CHECK (json_valid(places)),
	split      INTEGER NOT NULL DEFAULT 0 CHECK (split IN (0, 1)),
	created_at INTEGER NOT NULL,
	expires_at INTEGER NOT NULL,
	booking_id TEXT    NOT NULL DEFAULT '',
	owner      TEXT    NOT NULL DEFAULT '',
	-- version counts the hold's changes: 1 when made, one more at each
	-- extension and at its end (the version of its events).
	version    INTEGER NOT NULL DEFAULT 1
) STRICT;

-- The sweeper's scan: held holds by expiry. Partial, so that a hold
-- leaves it when it stops being held. A request for an event's lapsed
-- holds filters show_id along it: few holds are held at a time.
CREATE INDEX holds_held_expiry ON holds (expires_at, id) WHERE status = 'held';

CREATE TABLE bookings (
	id         TEXT    PRIMARY KEY,
	show_id    TEXT    NOT NULL,
	hold_id    TEXT    NOT NULL DEFAULT '',
	status     TEXT    NOT NULL CHECK (status IN ('booked', 'cancelled')),
	seats      TEXT    NOT NULL CHECK (json_valid(seats)),
	places     TEXT    NOT NULL CHECK (json_valid(places)),
	created_at INTEGER NOT NULL,
	owner      TEXT    NOT NULL DEFAULT ''
) STRICT;

-- A hold becomes at most one booking.
CREATE UNIQUE INDEX bookings_hold ON bookings (hold_id) WHERE hold_id <> '';

-- The seat history: every status change of a seat (seat set, quantity 1)
-- or of places of an area (area set, quantity of them), written in the
-- transaction of the change. AUTOINCREMENT keeps ids increasing and never
-- reused, so they follow commit order, as movements' do.
CREATE TABLE seat_history (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	at          INTEGER NOT NULL,
	show_id     TEXT    NOT NULL,
	seat        TEXT    NOT NULL DEFAULT '',
	area        TEXT    NOT NULL DEFAULT '',
	quantity    INTEGER NOT NULL,
	from_status TEXT    NOT NULL CHECK (from_status IN ('free', 'held', 'booked', 'blocked')),
	to_status   TEXT    NOT NULL CHECK (to_status IN ('free', 'held', 'booked', 'blocked')),
	hold_id     TEXT    NOT NULL DEFAULT '',
	booking_id  TEXT    NOT NULL DEFAULT '',
	actor       TEXT    NOT NULL DEFAULT ''
) STRICT;

-- One seat's history, and (through its prefix) an event's.
CREATE INDEX seat_history_seat ON seat_history (show_id, seat, id);

CREATE TRIGGER seat_history_no_update BEFORE UPDATE ON seat_history
BEGIN
	SELECT RAISE(ABORT, 'seat history is append-only');
END;

CREATE TRIGGER seat_history_no_delete BEFORE DELETE ON seat_history
BEGIN
	SELECT RAISE(ABORT, 'seat history is append-only');
END;
