-- Bookings: events (shows) with seats and general-admission areas, holds
-- that take them until they expire or are confirmed, bookings, and the
-- append-only history of every seat's status. The table of events is
-- shows: events is the outbox (0004_events.sql).

-- An event's row: its seat map as given (map: {"rows": [SeatRow…],
-- "areas": [{name, category, capacity}…]}), read back whole. map is json,
-- not jsonb, as the outbox's payload is: it is written and read whole,
-- never queried into, and json keeps it as written without a conversion
-- each way. The seats and areas themselves are rows of their own tables.
CREATE TABLE shows (
	id         text COLLATE "C" PRIMARY KEY,
	name       text NOT NULL,
	focal_x    double precision NOT NULL DEFAULT 0,
	focal_y    double precision NOT NULL DEFAULT 0,
	map        json NOT NULL,
	created_at timestamptz NOT NULL,
	version    bigint NOT NULL DEFAULT 1
);

-- One row per seat. Seat order is (section, row, ord): every statement
-- that locks seats takes them in that order (Seats with lock, MoveSeats),
-- so that two such statements never wait on each other in a cycle;
-- seats_order reads an event's seats in it. A held seat names its hold, a
-- booked one its booking and the hold it was confirmed from; '' is none.
CREATE TABLE seats (
	show_id    text COLLATE "C" NOT NULL CONSTRAINT seats_show_id_fkey REFERENCES shows (id),
	id         text COLLATE "C" NOT NULL,
	section    text COLLATE "C" NOT NULL,
	row        text COLLATE "C" NOT NULL,
	label      text NOT NULL DEFAULT '',
	ord        integer NOT NULL,
	category   text COLLATE "C" NOT NULL DEFAULT '',
	accessible boolean NOT NULL DEFAULT false,
	x          double precision NOT NULL DEFAULT 0,
	y          double precision NOT NULL DEFAULT 0,
	status     text NOT NULL CONSTRAINT seats_status_check CHECK (status IN
		('free', 'held', 'booked', 'blocked')),
	hold_id    text COLLATE "C" NOT NULL DEFAULT '',
	booking_id text COLLATE "C" NOT NULL DEFAULT '',
	PRIMARY KEY (show_id, id)
) WITH (fillfactor = 80);

CREATE INDEX seats_order ON seats (show_id, section, row, ord);

-- The free seats of an event, in seat order, with their ids: every hold
-- of best-available seats reads them (FreeSeatIDs), from this index
-- alone. The price is that a status change updates it, so it is not a
-- HOT update; a hold reads far more seats than it moves.
CREATE INDEX seats_free ON seats (show_id, section, row, ord, id) WHERE status = 'free';

-- General-admission areas: capacity places, of which held are taken by
-- live holds and booked by bookings. The CHECK constraints are the
-- invariant, as levels' are: no count below zero, never more places taken
-- than there are. MovePlaces checks the same in its WHERE clause and
-- PutAreas before it writes; they catch everything else.
CREATE TABLE areas (
	show_id  text COLLATE "C" NOT NULL CONSTRAINT areas_show_id_fkey REFERENCES shows (id),
	name     text COLLATE "C" NOT NULL,
	category text COLLATE "C" NOT NULL DEFAULT '',
	capacity bigint NOT NULL CONSTRAINT areas_capacity_check CHECK (capacity >= 0),
	held     bigint NOT NULL DEFAULT 0 CONSTRAINT areas_held_check CHECK (held >= 0),
	booked   bigint NOT NULL DEFAULT 0 CONSTRAINT areas_booked_check CHECK (booked >= 0),
	PRIMARY KEY (show_id, name),
	CONSTRAINT areas_within_capacity CHECK (held + booked <= capacity)
) WITH (fillfactor = 80); -- room on each page for HOT updates: no count is indexed

-- Holds and bookings keep their seats (a JSON array of ids) and places (a
-- JSON array of {area, quantity}) as jsonb, [] for none, read back whole,
-- as reservations keep their lines. Neither holds nor bookings reference
-- shows: a foreign key would take a share lock on the event's row at
-- every insert, and queue behind a transaction that has the event locked.
CREATE TABLE holds (
	id         text COLLATE "C" PRIMARY KEY,
	show_id    text COLLATE "C" NOT NULL,
	status     text NOT NULL CONSTRAINT holds_status_check CHECK (status IN
		('held', 'confirmed', 'released', 'expired')),
	seats      jsonb NOT NULL,
	places     jsonb NOT NULL,
	split      boolean NOT NULL DEFAULT false,
	created_at timestamptz NOT NULL,
	expires_at timestamptz NOT NULL,
	booking_id text COLLATE "C" NOT NULL DEFAULT '',
	owner      text COLLATE "C" NOT NULL DEFAULT '',
	-- version counts the hold's changes: 1 when made, one more at each
	-- extension and at its end (the version of its events).
	version    bigint NOT NULL DEFAULT 1
);

-- The sweeper's index: only held holds can lapse. A request for an
-- event's seats filters show_id along it: few holds are held at a time.
CREATE INDEX holds_held_expiry ON holds (expires_at, id) WHERE status = 'held';

CREATE TABLE bookings (
	id         text COLLATE "C" PRIMARY KEY,
	show_id    text COLLATE "C" NOT NULL,
	hold_id    text COLLATE "C" NOT NULL DEFAULT '',
	status     text NOT NULL CONSTRAINT bookings_status_check CHECK (status IN ('booked', 'cancelled')),
	seats      jsonb NOT NULL,
	places     jsonb NOT NULL,
	created_at timestamptz NOT NULL,
	owner      text COLLATE "C" NOT NULL DEFAULT ''
);

-- A hold becomes at most one booking.
CREATE UNIQUE INDEX bookings_hold ON bookings (hold_id) WHERE hold_id <> '';

-- The seat history: one row per status change of a seat, or per move of
-- quantity places of an area (seat is '' then, area the area's name),
-- never updated nor deleted. Like the ledger it has no foreign keys, so
-- that appending takes no lock on anything else.
CREATE TABLE seat_history (
	id          bigserial PRIMARY KEY,
	at          timestamptz NOT NULL DEFAULT now(),
	show_id     text COLLATE "C" NOT NULL,
	seat        text COLLATE "C" NOT NULL DEFAULT '',
	area        text COLLATE "C" NOT NULL DEFAULT '',
	quantity    bigint NOT NULL DEFAULT 0,
	from_status text NOT NULL CONSTRAINT seat_history_from_status_check CHECK (from_status IN
		('free', 'held', 'booked', 'blocked')),
	to_status   text NOT NULL CONSTRAINT seat_history_to_status_check CHECK (to_status IN
		('free', 'held', 'booked', 'blocked')),
	hold_id     text COLLATE "C" NOT NULL DEFAULT '',
	booking_id  text COLLATE "C" NOT NULL DEFAULT '',
	actor       text COLLATE "C" NOT NULL DEFAULT ''
);

-- One seat's history, in id order.
CREATE INDEX seat_history_seat ON seat_history (show_id, seat, id);

CREATE FUNCTION seat_history_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'seat_history is append-only: % refused', TG_OP
		USING ERRCODE = 'restrict_violation';
END
$$;

CREATE TRIGGER seat_history_append_only
	BEFORE UPDATE OR DELETE ON seat_history
	FOR EACH ROW EXECUTE FUNCTION seat_history_append_only();
