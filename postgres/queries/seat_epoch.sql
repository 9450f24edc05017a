-- The seat epoch of show $1 (0 if it has none), its version, the earliest
-- expiry of its held holds (NULL if it has none) and whether a room holds
-- its target $2, in one statement and without a lock. No row if the show
-- does not exist.
SELECT coalesce((SELECT epoch FROM seat_epochs WHERE show_id = s.id), 0), s.version,
       (SELECT min(expires_at) FROM holds WHERE show_id = s.id AND status = 'held'),
       EXISTS (SELECT FROM room_targets WHERE target = $2::text)
FROM shows s
WHERE s.id = $1::text
