-- The held holds of one show by expiry: what every hold of a show's seats
-- reads first (hold_lapse_candidates_show.sql), the show's lapsed holds,
-- without reading every hold the show ever had.
CREATE INDEX holds_show_held_expiry ON holds (show_id, expires_at, id) WHERE status = 'held';
