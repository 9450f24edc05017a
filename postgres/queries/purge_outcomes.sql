-- Delete the inbox records received before $1.
DELETE FROM payment_inbox WHERE received_at < $1::timestamptz;
