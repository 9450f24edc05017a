-- Insert room ?1 (id) in front of show ?2 ('' for none) or SKUs ?3 (a
-- JSON array of text), opening at ?4, with active limit ?5, rate ?6 per
-- minute, admissions of ?7 microseconds, order ?8, ?9 per visitor, stock
-- factor ?10, status ?11, ?12 joined, ?13 ordered, ?14 admitted, credit
-- ?15 at ?16, paused ?17, sold out at ?18 (NULL for not), secret ?19,
-- metadata ?20 (a JSON object), created at ?21, updated at ?22, version
-- ?23. An id in use is a constraint violation.
INSERT INTO rooms (id, show_id, skus, opens_at, active_limit, admit_per_minute, admission_ttl_us, admission_order,
	per_visitor, stock_factor, status, joined, ordered, admitted, credit, credit_at, paused, sold_out_at, secret,
	metadata, created_at, updated_at, version)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23);
