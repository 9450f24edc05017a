-- After set_on_hand.sql wrote nothing: whether location $2 exists, and
-- level ($1 sku, $2 location) if there is one (NULLs if not).
SELECT loc.id IS NOT NULL,
       l.sku IS NOT NULL,
       coalesce(l.on_hand, 0), coalesce(l.reserved, 0), coalesce(l.committed, 0),
       coalesce(l.version, 0), coalesce(l.fence, 0)
FROM (VALUES (1)) AS one (x)
LEFT JOIN locations loc ON loc.id = $2::text
LEFT JOIN levels l ON l.sku = $1::text AND l.location = $2::text;
