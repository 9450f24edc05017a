package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"

	"github.com/stockade/stockade"
)

// Shipments of orders: POST /v1/orders/{id}/shipments ships part of an
// order, GET lists its shipments; the documents they read and answer,
// and the Client's calls of them.

// shipmentBody is the body of POST /v1/orders/{id}/shipments.
type shipmentBody struct {
	Lines           []json.RawMessage `json:"lines"`
	Metadata        map[string]string `json:"metadata"`
	ExpectedVersion *int64            `json:"expected_version"`
}

// request decodes b into the shipment the service validates
// (NewShipment.Validate).
func (b shipmentBody) request() (stockade.NewShipment, error) {
	var req stockade.NewShipment
	var err error
	if req.Lines, err = decodeLines(b.Lines); err != nil {
		return req, err
	}
	if len(b.Metadata) > 0 {
		req.Metadata = b.Metadata
	}
	return req, nil
}

// shipmentJSON is a part of an order that left.
type shipmentJSON struct {
	ID        string    `json:"id"`
	OrderID   string    `json:"order_id"`
	CreatedAt time.Time `json:"created_at"`
	// Lines are what it took, per level.
	Lines []allocationJSON `json:"lines"`
	// OrderVersion is the version the order reached with it.
	OrderVersion int64 `json:"order_version"`
	// Metadata is the shop's own data, absent when there is none.
	Metadata stockade.Metadata `json:"metadata,omitempty"`
}

// shipmentsJSON is the answer of GET /v1/orders/{id}/shipments: a page
// of shipments, newest first, and the opaque cursor of the next page.
type shipmentsJSON struct {
	Shipments  []shipmentJSON `json:"shipments"`
	NextCursor string         `json:"next_cursor,omitempty"`
}

// shippedJSON is what an order has shipped: nil for nothing, so that the
// field is left out.
func shippedJSON(as []stockade.Allocation) []allocationJSON {
	if len(as) == 0 {
		return nil
	}
	return toAllocations(as)
}

func toShipment(s stockade.Shipment) shipmentJSON {
	return shipmentJSON{ID: s.ID, OrderID: s.OrderID, CreatedAt: wireTime(s.CreatedAt), Lines: toAllocations(s.Lines),
		OrderVersion: s.OrderVersion, Metadata: s.Metadata}
}

func (j shipmentJSON) domain() stockade.Shipment {
	return stockade.Shipment{ID: j.ID, OrderID: j.OrderID, CreatedAt: j.CreatedAt, Lines: domainAllocations(j.Lines),
		OrderVersion: j.OrderVersion, Metadata: j.Metadata}
}

func viewShipment(s stockade.Shipment) any { return toShipment(s) }

func viewShipments(p stockade.ShipmentPage) any {
	return shipmentsJSON{Shipments: each(p.Shipments, toShipment), NextCursor: p.Next}
}

// shipOrder ships part of the order in the path, at the version that the
// body's expected_version or the If-Match header gives, if one does. The
// shipment's order_version is the order's version after it, for the next
// change's If-Match.
func (s *Server) shipOrder(w http.ResponseWriter, r *http.Request) {
	var in shipmentBody
	body, ok := s.input(w, r, &in, "id")
	if !ok {
		return
	}
	req, err := in.request()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	expected, err := orderChangeBody{ExpectedVersion: in.ExpectedVersion}.expectedVersion(r.Header)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	id := r.PathValue("id")
	call(s, w, r, body, http.StatusCreated, viewShipment, func(ctx context.Context, idem *stockade.Idempotency) (stockade.Shipment, error) {
		return s.svc.ShipOrder(ctx, id, req, expected, idem)
	})
}

// listShipments answers with a page of the shipments of the order in the
// path, newest first.
func (s *Server) listShipments(w http.ResponseWriter, r *http.Request) {
	var q stockade.ShipmentQuery
	err := eachParam(r, func(name, v string) error {
		if ok, err := pageParam(name, v, stockade.MaxShipmentLimit, &q.Cursor, &q.Limit); ok {
			return err
		}
		return invalidf("query: unknown parameter %q (want cursor, limit)", name)
	})
	if err == nil {
		err = checkID("id", r.PathValue("id"))
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	id := r.PathValue("id")
	call(s, w, r, nil, http.StatusOK, viewShipments, func(ctx context.Context, _ *stockade.Idempotency) (stockade.ShipmentPage, error) {
		return s.svc.Shipments(ctx, id, q)
	})
}

// The Client's calls.

// newShipmentJSON is the body of a shipment as the client sends it.
type newShipmentJSON struct {
	Lines           []lineJSON        `json:"lines"`
	Metadata        stockade.Metadata `json:"metadata,omitempty"`
	ExpectedVersion *int64            `json:"expected_version,omitempty"`
}

// ShipOrder implements stockade.StockService; expectedVersion goes as the
// body's expected_version.
func (c *Client) ShipOrder(ctx context.Context, id string, req stockade.NewShipment, expectedVersion *int64, idem *stockade.Idempotency) (stockade.Shipment, error) {
	in := newShipmentJSON{Lines: toLines(req.Lines), Metadata: req.Metadata, ExpectedVersion: expectedVersion}
	var out shipmentJSON
	if err := c.do(ctx, http.MethodPost, "/v1/orders/"+seg(id)+"/shipments", in, &out, idem); err != nil {
		return stockade.Shipment{}, err
	}
	return out.domain(), nil
}

// Shipments implements stockade.StockService.
func (c *Client) Shipments(ctx context.Context, orderID string, q stockade.ShipmentQuery) (stockade.ShipmentPage, error) {
	var out shipmentsJSON
	err := c.do(ctx, http.MethodGet, pagePath("/v1/orders/"+seg(orderID)+"/shipments", url.Values{}, q.Cursor, q.Limit), nil, &out, nil)
	return stockade.ShipmentPage{Shipments: each(out.Shipments, shipmentJSON.domain), Next: out.NextCursor}, err
}
