-- Record the seats of show ?1 freed (?3, a JSON array of ids) and taken
-- (?4) under its epoch ?2, just bumped.
INSERT INTO seat_epoch_changes (show_id, epoch, freed, taken)
VALUES (?1, ?2, ?3, ?4);
