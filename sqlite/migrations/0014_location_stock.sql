-- A location's stock, in SKU order (GET /v1/locations/{id}/stock).
CREATE INDEX levels_location ON levels (location, sku);
