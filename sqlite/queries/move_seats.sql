-- Move seats of event ?1: ?2 is a JSON array with one [seat, from, to,
-- hold, booking] array per move. A seat moves only if it is in status
-- from, held by hold when from is 'held', booked by booking when from is
-- 'booked'. To 'held' sets its hold and clears its booking; to 'booked'
-- sets its booking and keeps its hold; to 'free' or 'blocked' clears both.
-- Returns what seat order needs of each seat moved (in no order).
--
-- The moves are MATERIALIZED so that the plan reads them first and looks
-- each seat up by primary key: joined to json_each directly, the planner
-- scans the event's seats and reads the moves once per seat.
WITH m (seat, from_status, to_status, hold_id, booking_id) AS MATERIALIZED (
	SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4
	FROM json_each(?2)
)
UPDATE seats
SET status     = m.to_status,
    hold_id    = CASE m.to_status
                   WHEN 'held' THEN m.hold_id
                   WHEN 'booked' THEN seats.hold_id
                   ELSE '' END,
    booking_id = iif(m.to_status = 'booked', m.booking_id, '')
FROM m
WHERE seats.show_id = ?1
  AND seats.id = m.seat
  AND seats.status = m.from_status
  AND (m.from_status <> 'held' OR seats.hold_id = m.hold_id)
  AND (m.from_status <> 'booked' OR seats.booking_id = m.booking_id)
RETURNING seats.id, seats.section, seats."row", seats.ord;
