-- Write ?2 opens_at, ?3 active_limit, ?4 admit_per_minute, ?5
-- admission_ttl_us, ?6 admission_order, ?7 per_visitor, ?8 stock_factor,
-- ?9 status, ?10 joined, ?11 ordered, ?12 admitted, ?13 credit, ?14
-- credit_at, ?15 paused, ?16 sold_out_at, ?17 secret, ?18 metadata, ?19
-- updated_at and ?20 version over room ?1 (id) if its version is ?20 - 1.
-- It returns the room's show_id and skus, which it keeps, and whether the
-- room holds its targets (has rows in room_targets), for the store to
-- hold or release them as the new status says.
UPDATE rooms
SET opens_at = ?2, active_limit = ?3, admit_per_minute = ?4, admission_ttl_us = ?5, admission_order = ?6,
    per_visitor = ?7, stock_factor = ?8, status = ?9, joined = ?10, ordered = ?11, admitted = ?12, credit = ?13,
    credit_at = ?14, paused = ?15, sold_out_at = ?16, secret = ?17, metadata = ?18, updated_at = ?19, version = ?20
WHERE id = ?1 AND version = ?20 - 1
RETURNING show_id, skus, EXISTS (SELECT 1 FROM room_targets WHERE room_targets.room_id = rooms.id);
