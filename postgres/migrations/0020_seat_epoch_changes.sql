-- What moved each seat epoch (0007_seat_epochs.sql): the seats that the
-- transaction which took the epoch freed, and those it took. Epochs are
-- taken one at a time, each holding the show's seat_epochs row until its
-- transaction ends, so their order is the order of the commits: a copy of
-- a show's free seats kept at epoch E is brought to epoch F by applying
-- the changes of E+1 … F in order, without reading the show's seats
-- again. Each bump deletes the show's changes older than the last
-- stockade.SeatEpochKept; a copy further behind reads the seats again.
CREATE TABLE seat_epoch_changes (
	show_id text COLLATE "C" NOT NULL,
	epoch   bigint NOT NULL,
	freed   text[] COLLATE "C" NOT NULL DEFAULT '{}',
	taken   text[] COLLATE "C" NOT NULL DEFAULT '{}',
	PRIMARY KEY (show_id, epoch)
);
