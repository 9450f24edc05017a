-- Delete the areas of event $1 named in $2 (text[]) that have no place
-- held or booked.
DELETE FROM areas
WHERE show_id = $1::text AND name = ANY ($2::text[]) AND held = 0 AND booked = 0;
