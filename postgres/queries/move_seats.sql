-- Move seats of event $1, given as parallel arrays: $2 seat id (distinct),
-- $3 from status, $4 to status, $5 hold id, $6 booking id. A seat moves if
-- it is in its from status and, from held, held by the hold, from booked,
-- booked by the booking. To held it takes the hold (and loses its
-- booking), to booked it takes the booking and keeps its hold, to free or
-- blocked it loses both. Returns the ids of the seats moved, in seat order.
--
-- locked takes every seat named first, in seat order, as Seats with lock
-- does, so that no two transactions that lock seats wait on each other in
-- a cycle. The update waits for it through a condition on no row (a
-- one-time filter, checked before the update reads a seat), not a join:
-- a prepared statement's generic plan expects a handful of seats and
-- would join them in a nested loop, quadratic in a batch's hundreds. A
-- seat that a concurrent transaction changed is waited for and locked in
-- its latest version, and READ COMMITTED re-checks the update's condition
-- on that version: of concurrent moves out of the same status, one wins.
-- The update names the seats by primary key (id = ANY) as well as through
-- the moves, so that the planner reads them by it, not all the event's.
-- Seats moved out of free leave free_seats, and seats moved to free join
-- it, in the same statement (a move from free to free changes nothing).
WITH locked AS MATERIALIZED (
	SELECT s.id
	FROM seats s
	WHERE s.show_id = $1::text AND s.id = ANY ($2::text[])
	ORDER BY s.section, s.row, s.ord, s.id
	FOR UPDATE
), moved AS (
	UPDATE seats AS s
	SET status = m.to_status,
	    hold_id = CASE m.to_status WHEN 'held' THEN m.hold_id WHEN 'booked' THEN s.hold_id ELSE '' END,
	    booking_id = CASE m.to_status WHEN 'booked' THEN m.booking_id ELSE '' END
	FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
	     AS m (seat, from_status, to_status, hold_id, booking_id)
	WHERE (SELECT count(*) FROM locked) >= 0
	  AND s.show_id = $1::text AND s.id = ANY ($2::text[]) AND s.id = m.seat
	  AND s.status = m.from_status
	  AND (m.from_status <> 'held' OR s.hold_id = m.hold_id)
	  AND (m.from_status <> 'booked' OR s.booking_id = m.booking_id)
	RETURNING s.id, s.section, s.row, s.ord, m.from_status, m.to_status
), taken AS (
	DELETE FROM free_seats f
	USING moved m
	WHERE m.from_status = 'free' AND m.to_status <> 'free'
	  AND f.show_id = $1::text AND f.section = m.section AND f.row = m.row AND f.ord = m.ord AND f.id = m.id
), freed AS (
	INSERT INTO free_seats (show_id, section, row, ord, id)
	SELECT $1::text, m.section, m.row, m.ord, m.id
	FROM moved m
	WHERE m.to_status = 'free' AND m.from_status <> 'free'
)
SELECT id
FROM moved
ORDER BY section, row, ord, id;
