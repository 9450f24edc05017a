-- The visitors of room ?1 (id) whose ids are in ?2 (a JSON array of
-- text), in visitor id order.
SELECT room_id, visitor_id, position, draw, joined_at, admitted_at, expires_at, used_at, owner
FROM room_visitors
WHERE room_id = ?1 AND visitor_id IN (SELECT value FROM json_each(?2))
ORDER BY visitor_id;
