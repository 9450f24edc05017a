-- Insert visitors of rooms. The store appends one (room_id, visitor_id,
-- position, draw, joined_at, admitted_at, expires_at, used_at, owner) tuple of
-- parameters per row, as many rows per statement as SQLite binds; times
-- are Unix microseconds, NULL for none. A visitor already in its room and
-- a position above 0 in use in the room are constraint violations.
INSERT INTO room_visitors (room_id, visitor_id, position, draw, joined_at, admitted_at, expires_at, used_at, owner)
VALUES
