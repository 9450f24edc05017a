-- Up to ?4 (-1 for all) held reservations that expired before ?1 (Unix
-- microseconds), after the cursor (?2, ?3): by expiry, then id, each with
-- the status of its payment ('' for none), one lookup of the unique
-- constraint on the target. Which of them lapse is the engine's rule.
SELECT r.id, r.status, r.created_at, r.expires_at, r.order_id, r.lines, r.allocations, r.owner, r.metadata,
	coalesce(p.status, '')
FROM reservations r
LEFT JOIN payments p ON p.target_kind = 'reservation' AND p.target_id = r.id
WHERE r.status = 'held' AND r.expires_at < ?1
  AND (r.expires_at, r.id) > (?2, ?3)
ORDER BY r.expires_at, r.id
LIMIT ?4;
