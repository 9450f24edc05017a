-- The sequence fencing tokens are drawn from, created on first use.
-- __SEQUENCE__ stands for the quoted, schema-qualified name from Options
-- (default "public"."lock_token_seq"). CACHE 1, the default, keeps tokens
-- increasing across sessions; NO CYCLE keeps them from ever wrapping.
CREATE SEQUENCE IF NOT EXISTS __SEQUENCE__ AS bigint MINVALUE 1 NO CYCLE CACHE 1;
