-- As hold_lapse_candidates.sql, but only the holds of event ?5.
SELECT h.id, h.show_id, h.status, h.seats, h.places, h.split, h.created_at, h.expires_at, h.booking_id,
	h.owner, h.version, h.metadata, coalesce(p.status, '')
FROM holds h
LEFT JOIN payments p ON p.target_kind = 'hold' AND p.target_id = h.id
WHERE h.status = 'held' AND h.show_id = ?5 AND h.expires_at < ?1
  AND (h.expires_at, h.id) > (?2, ?3)
ORDER BY h.expires_at, h.id
LIMIT ?4;
