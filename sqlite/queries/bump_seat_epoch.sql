-- Add one to the seat epoch of event ?1 and return it.
INSERT INTO seat_epochs (show_id, epoch)
VALUES (?1, 1)
ON CONFLICT (show_id) DO UPDATE SET epoch = epoch + 1
RETURNING epoch;
