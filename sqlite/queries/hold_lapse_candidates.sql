-- Up to ?4 (-1 for all) held holds that expired before ?1 (Unix
-- microseconds), after the cursor (?2, ?3): by expiry, then id, each with
-- the status of its payment ('' for none), one lookup of the unique
-- constraint on the target. Which of them lapse is the engine's rule.
SELECT h.id, h.show_id, h.status, h.seats, h.places, h.split, h.created_at, h.expires_at, h.booking_id,
	h.owner, h.version, h.metadata, coalesce(p.status, '')
FROM holds h
LEFT JOIN payments p ON p.target_kind = 'hold' AND p.target_id = h.id
WHERE h.status = 'held' AND h.expires_at < ?1
  AND (h.expires_at, h.id) > (?2, ?3)
ORDER BY h.expires_at, h.id
LIMIT ?4;
