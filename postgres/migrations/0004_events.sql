-- The outbox: the events of every change, written in the transaction of
-- the change they describe (AppendEvents), so that an event exists exactly
-- when its change committed; read by relays a page at a time, after the
-- last position they read (Events); deleted by age (PruneEvents).
--
-- An event's position is (xid, seq): the id of the transaction that wrote
-- it, then a sequence number. A sequence alone will not do: seq is taken
-- when the row is inserted, but transactions commit in another order, so a
-- reader that has read up to seq 8 can meet seq 7 later, when the
-- transaction that took it commits, and skip it for ever. Transaction ids
-- do not follow commits either, but each snapshot names the oldest
-- transaction still running (its xmin): every transaction with a lower id
-- has ended, and every one that takes an id later (a transaction takes one
-- at its first write) gets a higher one. Events reads only events whose
-- xid is below its snapshot's xmin, in (xid, seq) order, so nothing can
-- appear behind what it returned: a transaction that began earlier but
-- commits later is waited for, not skipped. xid8 is the 64-bit id (epoch
-- and xid), which never wraps around; pg_current_xact_id() is the
-- top-level transaction's, so events written under a savepoint have it
-- too. The price: an event becomes readable only once every transaction
-- that took an id before it has ended, in any database of the server
-- (xids are the server's), so a long write transaction holds readers back;
-- it never makes them miss an event.
--
-- payload is json, not jsonb: it is written and read whole, never queried
-- into, and json keeps the text as written (keys in their order, numbers
-- as they were spelled) while still refusing what is not JSON; jsonb would
-- also cost a conversion on every insert.
CREATE TABLE events (
	xid          xid8 NOT NULL DEFAULT pg_current_xact_id(),
	seq          bigserial,
	id           text COLLATE "C" NOT NULL,
	type         text COLLATE "C" NOT NULL,
	aggregate    text COLLATE "C" NOT NULL,
	aggregate_id text COLLATE "C" NOT NULL,
	version      bigint NOT NULL,
	at           timestamptz NOT NULL,
	payload      json NOT NULL,
	PRIMARY KEY (xid, seq)
);

-- Every reservation, confirmation and stock change writes events, and
-- each index is a write more on that path (measured: the outbox with four
-- indexes cost atomic a quarter of its orders per second). So one index
-- besides the position: the events of one aggregate in position order, for
-- a reader that follows one reservation, order or level. The id is not
-- unique in the table: it is 130 bits, 80 of them random, and consumers
-- drop repeats by it. Pruning walks the position order, which follows
-- time closely enough, and type and aggregate, a handful of values each,
-- are filtered along it.
CREATE INDEX events_aggregate_id ON events (aggregate_id, xid, seq);
