-- The recorded changes of show $1's seat epoch after epoch $2, in epoch
-- order.
SELECT epoch, freed, taken
FROM seat_epoch_changes
WHERE show_id = $1::text AND epoch > $2::bigint
ORDER BY epoch
