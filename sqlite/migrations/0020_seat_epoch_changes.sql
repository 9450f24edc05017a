-- What moved each seat epoch (0007_seat_epochs.sql): the seats that the
-- transaction which took the epoch freed, and those it took, as JSON
-- arrays of ids. SQLite runs one writer at a time, so epochs are taken in
-- the order of the commits: a copy of a show's free seats kept at epoch E
-- is brought to epoch F by applying the changes of E+1 … F in order,
-- without reading the show's seats again. Each bump deletes the show's
-- changes older than the last stockade.SeatEpochKept; a copy further
-- behind reads the seats again.
CREATE TABLE seat_epoch_changes (
	show_id TEXT    NOT NULL,
	epoch   INTEGER NOT NULL,
	freed   TEXT    NOT NULL DEFAULT '[]',
	taken   TEXT    NOT NULL DEFAULT '[]',
	PRIMARY KEY (show_id, epoch)
) STRICT, WITHOUT ROWID;
