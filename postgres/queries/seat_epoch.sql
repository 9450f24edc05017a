-- The seat epoch of event $1, 0 if it has none.
SELECT coalesce((SELECT epoch FROM seat_epochs WHERE show_id = $1::text), 0)
