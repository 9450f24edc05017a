-- Add one to the seat epoch of show $1, record the seats freed ($2) and
-- taken ($3) under the new epoch, forget the show's changes $4 epochs
-- older, and return the new epoch. The deletion reads the table as it was
-- before the statement: it never sees the change just recorded.
WITH bumped AS (
	INSERT INTO seat_epochs AS e (show_id, epoch)
	VALUES ($1::text, 1)
	ON CONFLICT (show_id) DO UPDATE SET epoch = e.epoch + 1
	RETURNING epoch
), recorded AS (
	INSERT INTO seat_epoch_changes (show_id, epoch, freed, taken)
	SELECT $1::text, epoch, $2::text[], $3::text[]
	FROM bumped
), forgotten AS (
	DELETE FROM seat_epoch_changes
	WHERE show_id = $1::text AND epoch <= (SELECT epoch FROM bumped) - $4::bigint
)
SELECT epoch FROM bumped
