-- Append seat history rows, given as parallel arrays: $1 at (timestamptz[],
-- NULL for the transaction's start), $2 show_id, $3 seat, $4 area,
-- $5 quantity, $6 from_status, $7 to_status, $8 hold_id, $9 booking_id,
-- $10 actor. Ids are assigned in array order.
INSERT INTO seat_history (at, show_id, seat, area, quantity, from_status, to_status, hold_id, booking_id, actor)
SELECT coalesce(c.at, now()), c.show_id, c.seat, c.area, c.quantity, c.from_status, c.to_status, c.hold_id, c.booking_id, c.actor
FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::text[], $5::bigint[],
            $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])
     WITH ORDINALITY AS c (at, show_id, seat, area, quantity, from_status, to_status, hold_id, booking_id, actor, n)
ORDER BY c.n;
