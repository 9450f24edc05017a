package httpapi

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"time"

	"github.com/stockade/stockade"
)

// Locations, stock levels and the ledger: PUT and GET /v1/locations,
// /v1/stock and GET /v1/movements, the documents they read and answer,
// and the Client's calls of them.

// The request bodies and queries.

type locationBody struct {
	Name *string  `json:"name"`
	Lat  *float64 `json:"lat"`
	Lon  *float64 `json:"lon"`
}

func (b locationBody) location(id string) (stockade.Location, error) {
	if err := checkID("id", id); err != nil {
		return stockade.Location{}, err
	}
	loc := stockade.Location{ID: id}
	switch {
	case b.Name == nil:
		return loc, required("name")
	case (b.Lat == nil) != (b.Lon == nil):
		return loc, stockade.Errorf(stockade.EInvalid, "lat and lon: give both, or neither for a location without a place")
	case b.Lat != nil:
		loc.Point = &stockade.Point{Lat: *b.Lat, Lon: *b.Lon}
	}
	loc.Name = *b.Name
	return loc, nil
}

type setStockBody struct {
	OnHand          *int64 `json:"on_hand"`
	ExpectedVersion *int64 `json:"expected_version"`
}

func (b setStockBody) check() error {
	switch {
	case b.OnHand == nil:
		return required("on_hand")
	}
	return nil
}

type adjustBody struct {
	Delta  *int64  `json:"delta"`
	Reason *string `json:"reason"`
}

func (b adjustBody) check() error {
	switch {
	case b.Delta == nil:
		return required("delta")
	case b.Reason == nil:
		return required("reason")
	}
	return nil
}

// locationQuery reads the query of GET /v1/locations.
func locationQuery(r *http.Request) (stockade.LocationQuery, error) {
	var q stockade.LocationQuery
	err := eachParam(r, func(name, v string) error {
		if ok, err := pageParam(name, v, stockade.MaxLocationLimit, &q.Cursor, &q.Limit); ok {
			return err
		}
		return invalidf("query: unknown parameter %q (want cursor, limit)", name)
	})
	return q, err
}

// skuQuery reads the query of GET /v1/stock.
func skuQuery(r *http.Request) (stockade.SKUQuery, error) {
	var q stockade.SKUQuery
	err := eachParam(r, func(name, v string) error {
		if ok, err := pageParam(name, v, stockade.MaxSKULimit, &q.Cursor, &q.Limit); ok {
			return err
		}
		if name != "prefix" {
			return invalidf("query: unknown parameter %q (want prefix, cursor, limit)", name)
		}
		q.Prefix = v
		return checkID("prefix", v)
	})
	return q, err
}

const (
	// maxMovements is the most ledger rows one GET returns.
	maxMovements = 10000
)

// movementQuery reads the query of GET /v1/movements. The cursor is
// opaque here: the service refuses one it did not give out.
func movementQuery(r *http.Request) (stockade.MovementQuery, error) {
	var f stockade.MovementQuery
	err := eachParam(r, func(name, v string) error {
		if ok, err := pageParam(name, v, maxMovements, &f.Cursor, &f.Limit); ok {
			return err
		}
		switch name {
		case "sku":
			f.SKU = v
		case "location":
			f.Location = v
		case "ref":
			f.Ref = v
		default:
			return invalidf("query: unknown parameter %q (want sku, location, ref, cursor, limit)", name)
		}
		return checkID(name, v)
	})
	return f, err
}

// The JSON documents.

// locationJSON is a location as the API shows it.
type locationJSON struct {
	ID   string   `json:"id"`
	Name string   `json:"name"`
	Lat  *float64 `json:"lat,omitempty"` // with Lon, or neither
	Lon  *float64 `json:"lon,omitempty"`
}

// locationsJSON is the answer of GET /v1/locations: a page of
// locations in id order, and the opaque cursor of the next page, given as
// ?cursor=; none on the last page.
type locationsJSON struct {
	Locations  []locationJSON `json:"locations"`
	NextCursor string         `json:"next_cursor,omitempty"`
}

// levelJSON is a SKU's stock at one location, with what is available.
type levelJSON struct {
	SKU       string `json:"sku,omitempty"` // left out inside a stock
	Location  string `json:"location"`
	OnHand    int64  `json:"on_hand"`
	Reserved  int64  `json:"reserved"`
	Committed int64  `json:"committed"`
	Available int64  `json:"available"`
	Version   int64  `json:"version"`
}

// totalsJSON are a SKU's counters summed over its locations.
type totalsJSON struct {
	OnHand    int64 `json:"on_hand"`
	Reserved  int64 `json:"reserved"`
	Committed int64 `json:"committed"`
	Available int64 `json:"available"`
}

// stockJSON is the answer of GET /v1/stock/{sku}.
type stockJSON struct {
	SKU    string      `json:"sku"`
	Levels []levelJSON `json:"levels"`
	Totals totalsJSON  `json:"totals"`
}

// skusJSON is the answer of GET /v1/stock: a page of SKUs with their
// totals, in SKU order, and the opaque cursor of the next page.
type skusJSON struct {
	SKUs       []skuJSON `json:"skus"`
	NextCursor string    `json:"next_cursor,omitempty"`
}

type skuJSON struct {
	SKU    string     `json:"sku"`
	Totals totalsJSON `json:"totals"`
}

// movementJSON is a row of the ledger: the change to one level's counters.
type movementJSON struct {
	ID        int64     `json:"id"`
	At        time.Time `json:"at"`
	SKU       string    `json:"sku"`
	Location  string    `json:"location"`
	Kind      string    `json:"kind"`
	OnHand    int64     `json:"on_hand"`
	Reserved  int64     `json:"reserved"`
	Committed int64     `json:"committed"`
	Ref       string    `json:"ref,omitempty"`
	Reason    string    `json:"reason,omitempty"`
	// Actor is the name of the API key whose call made the change; empty
	// for the service's own changes.
	Actor string `json:"actor,omitempty"`
}

// movementsJSON is the answer of GET /v1/movements: a page of rows, oldest
// first, and the opaque cursor that gets the next page, given as
// ?cursor=; none when no more rows matched.
type movementsJSON struct {
	Movements  []movementJSON `json:"movements"`
	NextCursor string         `json:"next_cursor,omitempty"`
}

func toLocation(l stockade.Location) locationJSON {
	out := locationJSON{ID: l.ID, Name: l.Name}
	if p := l.Point; p != nil {
		out.Lat, out.Lon = &p.Lat, &p.Lon
	}
	return out
}

func toLocations(p stockade.LocationPage) locationsJSON {
	return locationsJSON{Locations: each(p.Locations, toLocation), NextCursor: p.Next}
}

func toLevel(l stockade.Level) levelJSON {
	return levelJSON{SKU: l.SKU, Location: l.Location, OnHand: l.OnHand, Reserved: l.Reserved,
		Committed: l.Committed, Available: l.Available(), Version: l.Version}
}

func toStock(s stockade.Stock) stockJSON {
	out := stockJSON{SKU: s.SKU, Levels: make([]levelJSON, 0, len(s.Levels)), Totals: totalsJSON(s.Totals)}
	for _, l := range s.Levels {
		lv := toLevel(l)
		lv.SKU = ""
		out.Levels = append(out.Levels, lv)
	}
	return out
}

func toSKUs(p stockade.SKUPage) skusJSON {
	return skusJSON{SKUs: each(p.SKUs, func(s stockade.SKUTotals) skuJSON {
		return skuJSON{SKU: s.SKU, Totals: totalsJSON(s.Totals)}
	}), NextCursor: p.Next}
}

func toMovements(p stockade.MovementPage) movementsJSON {
	out := movementsJSON{Movements: make([]movementJSON, 0, len(p.Movements)), NextCursor: p.Next}
	for _, m := range p.Movements {
		out.Movements = append(out.Movements, movementJSON{ID: m.ID, At: wireTime(m.At), SKU: m.SKU, Location: m.Location,
			Kind: string(m.Kind), OnHand: m.OnHand, Reserved: m.Reserved, Committed: m.Committed, Ref: m.Ref, Reason: m.Reason, Actor: m.Actor})
	}
	return out
}

// The conversions back, for Client.

func (l locationJSON) domain() stockade.Location {
	loc := stockade.Location{ID: l.ID, Name: l.Name}
	if l.Lat != nil && l.Lon != nil {
		loc.Point = &stockade.Point{Lat: *l.Lat, Lon: *l.Lon}
	}
	return loc
}

func (j locationsJSON) domain() stockade.LocationPage {
	return stockade.LocationPage{Locations: each(j.Locations, locationJSON.domain), Next: j.NextCursor}
}

func (l levelJSON) domain() stockade.Level {
	return stockade.Level{SKU: l.SKU, Location: l.Location, OnHand: l.OnHand, Reserved: l.Reserved,
		Committed: l.Committed, Version: l.Version}
}

func (s stockJSON) domain() stockade.Stock {
	out := stockade.Stock{SKU: s.SKU, Totals: stockade.Totals(s.Totals)}
	for _, l := range s.Levels {
		dl := l.domain()
		dl.SKU = s.SKU
		out.Levels = append(out.Levels, dl)
	}
	return out
}

func (j skusJSON) domain() stockade.SKUPage {
	return stockade.SKUPage{SKUs: each(j.SKUs, func(s skuJSON) stockade.SKUTotals {
		return stockade.SKUTotals{SKU: s.SKU, Totals: stockade.Totals(s.Totals)}
	}), Next: j.NextCursor}
}

func (ms movementsJSON) domain() stockade.MovementPage {
	out := stockade.MovementPage{Next: ms.NextCursor}
	for _, m := range ms.Movements {
		out.Movements = append(out.Movements, stockade.Movement{ID: m.ID, At: m.At, SKU: m.SKU, Location: m.Location,
			Kind: stockade.MovementKind(m.Kind), Delta: stockade.Delta{OnHand: m.OnHand, Reserved: m.Reserved, Committed: m.Committed},
			Ref: m.Ref, Reason: m.Reason, Actor: m.Actor})
	}
	return out
}

// The handlers.

func viewLocation(l stockade.Location) any      { return toLocation(l) }
func viewLocations(p stockade.LocationPage) any { return toLocations(p) }
func viewLevel(l stockade.Level) any            { return toLevel(l) }
func viewStock(st stockade.Stock) any           { return toStock(st) }
func viewSKUs(p stockade.SKUPage) any           { return toSKUs(p) }
func viewMovements(p stockade.MovementPage) any { return toMovements(p) }

func (s *Server) putLocation(w http.ResponseWriter, r *http.Request) {
	var in locationBody
	body, ok := s.input(w, r, &in, "id")
	if !ok {
		return
	}
	loc, err := in.location(r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, body, http.StatusOK, viewLocation, func(ctx context.Context, idem *stockade.Idempotency) (stockade.Location, error) {
		return s.svc.PutLocation(ctx, loc, idem)
	})
}

func (s *Server) getLocation(w http.ResponseWriter, r *http.Request) {
	byID(s, w, r, viewLocation, func(ctx context.Context, id string, _ *stockade.Idempotency) (stockade.Location, error) {
		return s.svc.Location(ctx, id)
	})
}

func (s *Server) listLocations(w http.ResponseWriter, r *http.Request) {
	q, err := locationQuery(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, nil, http.StatusOK, viewLocations, func(ctx context.Context, _ *stockade.Idempotency) (stockade.LocationPage, error) {
		return s.svc.Locations(ctx, q)
	})
}

func (s *Server) setStock(w http.ResponseWriter, r *http.Request) {
	var in setStockBody
	body, ok := s.input(w, r, &in, "sku", "location")
	if !ok {
		return
	}
	if err := in.check(); err != nil {
		s.writeError(w, r, err)
		return
	}
	k := stockade.Key{SKU: r.PathValue("sku"), Location: r.PathValue("location")}
	call(s, w, r, body, http.StatusOK, viewLevel, func(ctx context.Context, idem *stockade.Idempotency) (stockade.Level, error) {
		return s.svc.SetStock(ctx, k, *in.OnHand, in.ExpectedVersion, idem)
	})
}

func (s *Server) adjustStock(w http.ResponseWriter, r *http.Request) {
	var in adjustBody
	body, ok := s.input(w, r, &in, "sku", "location")
	if !ok {
		return
	}
	if err := in.check(); err != nil {
		s.writeError(w, r, err)
		return
	}
	k := stockade.Key{SKU: r.PathValue("sku"), Location: r.PathValue("location")}
	call(s, w, r, body, http.StatusOK, viewLevel, func(ctx context.Context, idem *stockade.Idempotency) (stockade.Level, error) {
		return s.svc.AdjustStock(ctx, k, *in.Delta, *in.Reason, idem)
	})
}

func (s *Server) getStock(w http.ResponseWriter, r *http.Request) {
	body, ok := s.input(w, r, nil, "sku")
	if !ok {
		return
	}
	call(s, w, r, body, http.StatusOK, viewStock, func(ctx context.Context, _ *stockade.Idempotency) (stockade.Stock, error) {
		return s.svc.Stock(ctx, r.PathValue("sku"))
	})
}

func (s *Server) listSKUs(w http.ResponseWriter, r *http.Request) {
	q, err := skuQuery(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, nil, http.StatusOK, viewSKUs, func(ctx context.Context, _ *stockade.Idempotency) (stockade.SKUPage, error) {
		return s.svc.SKUs(ctx, q)
	})
}

func (s *Server) locationStock(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	q, err := skuQuery(r)
	if err == nil {
		err = checkID("id", id)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, nil, http.StatusOK, func(p stockade.LevelPage) any { return toLocationStock(id, p) },
		func(ctx context.Context, _ *stockade.Idempotency) (stockade.LevelPage, error) {
			return s.svc.LocationStock(ctx, id, q)
		})
}

// locationStockJSON is a page of the levels at a location, in SKU order.
type locationStockJSON struct {
	Location   string      `json:"location"`
	Levels     []levelJSON `json:"levels"`
	NextCursor string      `json:"next_cursor,omitempty"`
}

func toLocationStock(location string, p stockade.LevelPage) locationStockJSON {
	return locationStockJSON{Location: location, Levels: each(p.Levels, toLevel), NextCursor: p.Next}
}

func (j locationStockJSON) domain() stockade.LevelPage {
	return stockade.LevelPage{Levels: each(j.Levels, levelJSON.domain), Next: j.NextCursor}
}

func (s *Server) movements(w http.ResponseWriter, r *http.Request) {
	q, err := movementQuery(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	call(s, w, r, nil, http.StatusOK, viewMovements, func(ctx context.Context, _ *stockade.Idempotency) (stockade.MovementPage, error) {
		return s.svc.Movements(ctx, q)
	})
}

// The Client's calls.

// locationBodyOf is the body of PUT /v1/locations/{id}: the location
// without its id, which is in the path.
func locationBodyOf(loc stockade.Location) map[string]any {
	body := map[string]any{"name": loc.Name}
	if p := loc.Point; p != nil {
		body["lat"], body["lon"] = p.Lat, p.Lon
	}
	return body
}

// PutLocation implements stockade.StockService.
func (c *Client) PutLocation(ctx context.Context, loc stockade.Location, idem *stockade.Idempotency) (stockade.Location, error) {
	var out locationJSON
	if err := c.do(ctx, http.MethodPut, "/v1/locations/"+seg(loc.ID), locationBodyOf(loc), &out, idem); err != nil {
		return stockade.Location{}, err
	}
	return out.domain(), nil
}

// Location implements stockade.StockService.
func (c *Client) Location(ctx context.Context, id string) (stockade.Location, error) {
	var out locationJSON
	if err := c.do(ctx, http.MethodGet, "/v1/locations/"+seg(id), nil, &out, nil); err != nil {
		return stockade.Location{}, err
	}
	return out.domain(), nil
}

// Locations implements stockade.StockService.
func (c *Client) Locations(ctx context.Context, q stockade.LocationQuery) (stockade.LocationPage, error) {
	var out locationsJSON
	if err := c.do(ctx, http.MethodGet, pagePath("/v1/locations", url.Values{}, q.Cursor, q.Limit), nil, &out, nil); err != nil {
		return stockade.LocationPage{}, err
	}
	return out.domain(), nil
}

// SetStock implements stockade.StockService.
func (c *Client) SetStock(ctx context.Context, k stockade.Key, onHand int64, expectedVersion *int64, idem *stockade.Idempotency) (stockade.Level, error) {
	var out levelJSON
	in := setStockBody{OnHand: &onHand, ExpectedVersion: expectedVersion}
	if err := c.do(ctx, http.MethodPut, "/v1/stock/"+seg(k.SKU)+"/"+seg(k.Location), in, &out, idem); err != nil {
		return stockade.Level{}, err
	}
	return out.domain(), nil
}

// AdjustStock implements stockade.StockService.
func (c *Client) AdjustStock(ctx context.Context, k stockade.Key, delta int64, reason string, idem *stockade.Idempotency) (stockade.Level, error) {
	var out levelJSON
	in := adjustBody{Delta: &delta, Reason: &reason}
	if err := c.do(ctx, http.MethodPost, "/v1/stock/"+seg(k.SKU)+"/"+seg(k.Location)+"/adjust", in, &out, idem); err != nil {
		return stockade.Level{}, err
	}
	return out.domain(), nil
}

// Stock implements stockade.StockService.
func (c *Client) Stock(ctx context.Context, sku string) (stockade.Stock, error) {
	var out stockJSON
	if err := c.do(ctx, http.MethodGet, "/v1/stock/"+seg(sku), nil, &out, nil); err != nil {
		return stockade.Stock{}, err
	}
	return out.domain(), nil
}

// SKUs implements stockade.StockService.
func (c *Client) SKUs(ctx context.Context, q stockade.SKUQuery) (stockade.SKUPage, error) {
	v := url.Values{}
	if q.Prefix != "" {
		v.Set("prefix", q.Prefix)
	}
	var out skusJSON
	if err := c.do(ctx, http.MethodGet, pagePath("/v1/stock", v, q.Cursor, q.Limit), nil, &out, nil); err != nil {
		return stockade.SKUPage{}, err
	}
	return out.domain(), nil
}

// LocationStock implements stockade.StockService.
func (c *Client) LocationStock(ctx context.Context, location string, q stockade.SKUQuery) (stockade.LevelPage, error) {
	v := url.Values{}
	if q.Prefix != "" {
		v.Set("prefix", q.Prefix)
	}
	var out locationStockJSON
	if err := c.do(ctx, http.MethodGet, pagePath("/v1/locations/"+seg(location)+"/stock", v, q.Cursor, q.Limit), nil, &out, nil); err != nil {
		return stockade.LevelPage{}, err
	}
	return out.domain(), nil
}

// Movements implements stockade.StockService: one page, whose Next is the
// server's cursor, to pass back as is in q.Cursor. AllMovements follows
// the cursors.
func (c *Client) Movements(ctx context.Context, q stockade.MovementQuery) (stockade.MovementPage, error) {
	v := url.Values{}
	for name, s := range map[string]string{"sku": q.SKU, "location": q.Location, "ref": q.Ref} {
		if s != "" {
			v.Set(name, s)
		}
	}
	var out movementsJSON
	if err := c.do(ctx, http.MethodGet, pagePath("/v1/movements", v, q.Cursor, q.Limit), nil, &out, nil); err != nil {
		return stockade.MovementPage{}, err
	}
	return out.domain(), nil
}

// AllMovements returns the ledger rows that match q, from q.Cursor on,
// oldest first: it asks for a page of q.Limit rows whenever the loop has
// used the last one, following each page's cursor, and ends after the
// page that has none. An error ends it too, yielded with a zero Movement.
// stockade.MovementPage says what following the cursor guarantees while
// rows are being appended.
func (c *Client) AllMovements(ctx context.Context, q stockade.MovementQuery) iter.Seq2[stockade.Movement, error] {
	return func(yield func(stockade.Movement, error) bool) {
		for {
			page, err := c.Movements(ctx, q)
			if err != nil {
				yield(stockade.Movement{}, err)
				return
			}
			for _, m := range page.Movements {
				if !yield(m, nil) {
					return
				}
			}
			if page.Next == "" {
				return
			}
			q.Cursor = page.Next
		}
	}
}
