-- Draw a fencing token from sequence $1 (text, schema-qualified, quoted).
-- NULL if the sequence does not exist.
SELECT nextval(to_regclass($1));
