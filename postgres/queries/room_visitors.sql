-- The visitors of room $1 (id) whose ids are in $2, in visitor id order.
SELECT room_id, visitor_id, position, draw, joined_at, admitted_at, expires_at, used_at, owner
FROM room_visitors
WHERE room_id = $1::text AND visitor_id = ANY ($2::text[])
ORDER BY visitor_id;
