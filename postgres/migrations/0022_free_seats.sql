-- The free seats of each show, in seat order, in a table of their own
-- rather than the partial index seats_free on the seats' status: a
-- seat's status is indexed no more, so a move (above all held → booked,
-- four in five holds) is a HOT update when the seat's page has room,
-- with no new entry in any index of seats. A move out of free deletes
-- the seat's row here and a move to free inserts it, in the move's own
-- statement (move_seats.sql); SeatPut and SeatDelete keep it as they
-- write seats. Best-available reads it as it read seats_free, from the
-- index alone.
CREATE TABLE free_seats (
	show_id text COLLATE "C" NOT NULL,
	section text COLLATE "C" NOT NULL,
	row     text COLLATE "C" NOT NULL,
	ord     integer NOT NULL,
	id      text COLLATE "C" NOT NULL,
	PRIMARY KEY (show_id, section, row, ord, id)
);

INSERT INTO free_seats (show_id, section, row, ord, id)
SELECT show_id, section, row, ord, id
FROM seats
WHERE status = 'free';

DROP INDEX seats_free;
