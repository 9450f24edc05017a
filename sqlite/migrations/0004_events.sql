-- The outbox: the events of every change, written in the transaction of
-- the change they describe (AppendEvents), so that an event exists exactly
-- when its change committed; read by relays a page at a time, after the
-- last position they read (Events); deleted by age (PruneEvents).
--
-- seq is the event's position. A reader that has passed a position must
-- never see a new event appear behind it, so positions must follow the
-- order in which transactions commit. Here they do: one writer at a time
-- (the store's one writer connection, BEGIN IMMEDIATE, and SQLite's write
-- lock against other processes) means a transaction's rows get seqs above
-- those of every transaction that committed before it, and none can commit
-- a lower one while it runs. AUTOINCREMENT keeps a seq from ever being
-- handed out twice: a plain rowid is the largest one plus 1, which after
-- PruneEvents had deleted every row would start again behind the readers.
--
-- id is the event's own id ("evt_…"), by which consumers drop a second
-- delivery; it is 130 bits, 80 of them random, and not checked unique
-- here, which would be an index more on every write. at is Unix
-- microseconds, UTC. payload is JSON text, kept as written.
CREATE TABLE events (
	seq          INTEGER PRIMARY KEY AUTOINCREMENT,
	id           TEXT    NOT NULL,
	type         TEXT    NOT NULL,
	aggregate    TEXT    NOT NULL,
	aggregate_id TEXT    NOT NULL,
	version      INTEGER NOT NULL,
	at           INTEGER NOT NULL,
	payload      TEXT    NOT NULL CHECK (json_valid(payload))
) STRICT;

-- Every reservation, confirmation and stock change writes events, so the
-- insert path keeps to one index besides seq: the events of one aggregate
-- in position order, for a reader that follows one reservation, order or
-- level. Pruning walks seq, which follows time closely enough; type and
-- aggregate, a handful of values each, are filtered along it.
CREATE INDEX events_aggregate_id ON events (aggregate_id, seq);
