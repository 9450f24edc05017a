-- Insert visitors of rooms, given as parallel arrays: $1 room_id, $2
-- visitor_id, $3 position, $4 draw, $5 joined_at, $6 admitted_at, $7
-- expires_at, $8 used_at (NULL elements for none), $9 owner. A visitor already in
-- its room and a position above 0 in use in the room are unique
-- violations.
INSERT INTO room_visitors (room_id, visitor_id, position, draw, joined_at, admitted_at, expires_at, used_at, owner)
SELECT v.room_id, v.visitor_id, v.position, v.draw, v.joined_at, v.admitted_at, v.expires_at, v.used_at, v.owner
FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::timestamptz[], $6::timestamptz[],
	$7::timestamptz[], $8::timestamptz[], $9::text[])
     AS v (room_id, visitor_id, position, draw, joined_at, admitted_at, expires_at, used_at, owner);
