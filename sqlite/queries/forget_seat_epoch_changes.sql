-- Forget the changes of show ?1's seat epoch up to epoch ?2.
DELETE FROM seat_epoch_changes
WHERE show_id = ?1 AND epoch <= ?2;
