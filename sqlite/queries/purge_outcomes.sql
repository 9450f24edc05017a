-- Delete the inbox records received before ?1 (microseconds).
DELETE FROM payment_inbox WHERE received_at < ?1;
