-- An event's seat epoch: a number that grows in every transaction that
-- frees seats of the event (MoveSeats to free) and whenever a hold batch
-- bumps it (SeatEpoch). A hold batch keeps the event's free seats between
-- transactions while the epoch it read is the one it left. The row is
-- apart from the event's own, which a hold batch locks for the whole
-- transaction: a transaction that frees seats, and already holds rows of
-- holds that the batch may wait for, must not wait for the batch in turn.
-- For the same reason there is no foreign key to shows, whose check would
-- share-lock the event's row. No row is epoch 0.
CREATE TABLE seat_epochs (
	show_id text COLLATE "C" PRIMARY KEY,
	epoch   bigint NOT NULL
);
