-- An event's seat epoch: a number that grows in every transaction that
-- frees seats of the event (MoveSeats to free) and whenever a hold batch
-- bumps it (SeatEpoch). A hold batch keeps the event's free seats between
-- transactions while the epoch it read is the one it left. No row is
-- epoch 0.
CREATE TABLE seat_epochs (
	show_id TEXT    PRIMARY KEY,
	epoch   INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
