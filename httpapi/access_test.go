package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/lock/memlock"
)

// keys are the API keys of a keyed test server: one per role, one more
// storefront, and a revoked admin key.
type keys struct {
	admin, storefront, reader, otherShop, revoked string
	spare                                         string // the id of a reader key, for revocation
}

// makeKeys creates the keys of keys in a's store.
func (a *api) makeKeys() keys {
	a.t.Helper()
	mk := func(name string, role stockade.Role) (stockade.APIKey, string) {
		k, secret, err := a.eng.CreateKey(sys(a.t), stockade.NewKeyRequest{Name: name, Role: role})
		if err != nil {
			a.t.Fatal(err)
		}
		return k, secret
	}
	var ks keys
	_, ks.admin = mk("ops", stockade.RoleAdmin)
	_, ks.storefront = mk("shop", stockade.RoleStorefront)
	_, ks.reader = mk("audit", stockade.RoleReader)
	_, ks.otherShop = mk("other-shop", stockade.RoleStorefront)
	gone, secret := mk("former", stockade.RoleAdmin)
	if _, err := a.eng.RevokeKey(sys(a.t), gone.ID); err != nil {
		a.t.Fatal(err)
	}
	ks.revoked = secret
	spare, _ := mk("spare", stockade.RoleReader)
	ks.spare = spare.ID
	return ks
}

// bearer is the Authorization header line of a key.
func bearerOf(secret string) string { return "Authorization: Bearer " + secret }

// fixture is what the example requests refer to: a reservation, an
// order, a hold and a booking of the storefront key, on the show "gala",
// the pending payment of another reservation of the storefront key, and
// the spare key.
type fixture struct {
	reservation, order, hold, booking, payment, key string
	endpoint, delivery                              string // a webhook endpoint, and a delivery of it that failed
	room, visitor                                   string // a waiting room in front of the SKU gadget, and a visitor of it
}

// example is a request to a route that its allowed roles can make with
// success, and the status of that success.
type example struct {
	path, body string
	status     int
}

// examples has one example per route of routeTable.
var examples = map[string]func(f fixture) example{
	"PUT /v1/locations/{id}": func(fixture) example {
		return example{"/v1/locations/north", `{"name":"North","lat":60,"lon":10}`, 200}
	},
	"GET /v1/locations/{id}":         func(fixture) example { return example{"/v1/locations/east", "", 200} },
	"GET /v1/locations":              func(fixture) example { return example{"/v1/locations", "", 200} },
	"GET /v1/locations/{id}/stock":   func(fixture) example { return example{"/v1/locations/east/stock?prefix=wid&limit=5", "", 200} },
	"PUT /v1/stock/{sku}/{location}": func(fixture) example { return example{"/v1/stock/widget/east", `{"on_hand":11}`, 200} },
	"POST /v1/stock/{sku}/{location}/adjust": func(fixture) example {
		return example{"/v1/stock/widget/east/adjust", `{"delta":1,"reason":"found"}`, 200}
	},
	"GET /v1/stock/{sku}": func(fixture) example { return example{"/v1/stock/widget", "", 200} },
	"GET /v1/stock":       func(fixture) example { return example{"/v1/stock", "", 200} },
	"POST /v1/reservations": func(fixture) example {
		return example{"/v1/reservations", `{"lines":[{"sku":"widget","quantity":1}]}`, 201}
	},
	"GET /v1/reservations":               func(fixture) example { return example{"/v1/reservations", "", 200} },
	"GET /v1/reservations/{id}":          func(f fixture) example { return example{"/v1/reservations/" + f.reservation, "", 200} },
	"POST /v1/reservations/{id}/confirm": func(f fixture) example { return example{"/v1/reservations/" + f.reservation + "/confirm", "", 200} },
	"DELETE /v1/reservations/{id}":       func(f fixture) example { return example{"/v1/reservations/" + f.reservation, "", 200} },
	"PATCH /v1/reservations/{id}": func(f fixture) example {
		return example{"/v1/reservations/" + f.reservation, `{"metadata":{"cart":"c_1"}}`, 200}
	},
	"POST /v1/orders":             func(fixture) example { return example{"/v1/orders", `{"lines":[{"sku":"widget","quantity":1}]}`, 201} },
	"GET /v1/orders":              func(fixture) example { return example{"/v1/orders", "", 200} },
	"GET /v1/orders/{id}":         func(f fixture) example { return example{"/v1/orders/" + f.order, "", 200} },
	"POST /v1/orders/{id}/cancel": func(f fixture) example { return example{"/v1/orders/" + f.order + "/cancel", "", 200} },
	"PATCH /v1/orders/{id}": func(f fixture) example {
		return example{"/v1/orders/" + f.order, `{"metadata":{"cart":"c_1"}}`, 200}
	},
	"POST /v1/orders/{id}/fulfill": func(f fixture) example { return example{"/v1/orders/" + f.order + "/fulfill", "", 200} },
	"POST /v1/orders/{id}/shipments": func(f fixture) example {
		return example{"/v1/orders/" + f.order + "/shipments", `{"lines":[{"sku":"widget","quantity":1}]}`, 201}
	},
	"GET /v1/orders/{id}/shipments": func(f fixture) example { return example{"/v1/orders/" + f.order + "/shipments?limit=5", "", 200} },
	"PUT /v1/shows/{id}": func(fixture) example {
		return example{"/v1/shows/opera", `{"name":"Opera","rows":[{"section":"stalls","row":"A","first":1,"last":4}]}`, 200}
	},
	"GET /v1/shows":            func(fixture) example { return example{"/v1/shows?limit=1", "", 200} },
	"GET /v1/shows/{id}":       func(fixture) example { return example{"/v1/shows/gala", "", 200} },
	"GET /v1/shows/{id}/seats": func(fixture) example { return example{"/v1/shows/gala/seats?limit=2", "", 200} },
	"GET /v1/shows/{id}/history": func(fixture) example {
		return example{"/v1/shows/gala/history?seat=stalls/A/1&limit=2", "", 200}
	},
	"POST /v1/shows/{id}/holds": func(fixture) example {
		return example{"/v1/shows/gala/holds", `{"best_available":[{"quantity":2}]}`, 201}
	},
	"GET /v1/shows/{id}/holds":    func(fixture) example { return example{"/v1/shows/gala/holds?status=held&limit=2", "", 200} },
	"GET /v1/shows/{id}/bookings": func(fixture) example { return example{"/v1/shows/gala/bookings?limit=2", "", 200} },
	"GET /v1/holds":               func(fixture) example { return example{"/v1/holds", "", 200} },
	"GET /v1/bookings":            func(fixture) example { return example{"/v1/bookings?status=booked", "", 200} },
	"GET /v1/holds/{id}":          func(f fixture) example { return example{"/v1/holds/" + f.hold, "", 200} },
	"POST /v1/holds/{id}/extend": func(f fixture) example {
		return example{"/v1/holds/" + f.hold + "/extend", `{"ttl_seconds":1800}`, 200}
	},
	"POST /v1/holds/{id}/confirm": func(f fixture) example { return example{"/v1/holds/" + f.hold + "/confirm", "", 200} },
	"DELETE /v1/holds/{id}":       func(f fixture) example { return example{"/v1/holds/" + f.hold, "", 200} },
	"PATCH /v1/holds/{id}": func(f fixture) example {
		return example{"/v1/holds/" + f.hold, `{"metadata":{"cart":"c_1"}}`, 200}
	},
	"PATCH /v1/bookings/{id}": func(f fixture) example {
		return example{"/v1/bookings/" + f.booking, `{"metadata":{"cart":"c_1"}}`, 200}
	},
	"GET /v1/bookings/{id}":         func(f fixture) example { return example{"/v1/bookings/" + f.booking, "", 200} },
	"POST /v1/bookings/{id}/cancel": func(f fixture) example { return example{"/v1/bookings/" + f.booking + "/cancel", "", 200} },
	"POST /v1/payments": func(f fixture) example {
		return example{"/v1/payments", `{"target":{"kind":"reservation","id":"` + f.reservation + `"},"amount":1250,"currency":"EUR"}`, 201}
	},
	"GET /v1/payments":              func(fixture) example { return example{"/v1/payments?status=pending", "", 200} },
	"GET /v1/payments/{id}":         func(f fixture) example { return example{"/v1/payments/" + f.payment, "", 200} },
	"GET /v1/payments/{id}/history": func(f fixture) example { return example{"/v1/payments/" + f.payment + "/history", "", 200} },
	"POST /v1/payments/{id}/cancel": func(f fixture) example { return example{"/v1/payments/" + f.payment + "/cancel", "", 200} },
	"PATCH /v1/payments/{id}": func(f fixture) example {
		return example{"/v1/payments/" + f.payment, `{"metadata":{"cart":"c_1"}}`, 200}
	},
	"POST /v1/payments/{id}/outcomes": func(f fixture) example {
		return example{"/v1/payments/" + f.payment + "/outcomes", `{"event_id":"evt-1","status":"processing"}`, 200}
	},
	"POST /v1/payments/webhook": func(f fixture) example {
		return example{"/v1/payments/webhook", `{"event_id":"evt-1","payment_id":"` + f.payment + `","status":"succeeded"}`, 200}
	},
	"GET /v1/movements":     func(fixture) example { return example{"/v1/movements", "", 200} },
	"GET /v1/events":        func(fixture) example { return example{"/v1/events", "", 200} },
	"GET /v1/events/stream": func(fixture) example { return example{"/v1/events/stream", "", 200} },
	"GET /v1/locks":         func(fixture) example { return example{"/v1/locks?prefix=stockade:&limit=10", "", 200} },
	"POST /v1/keys":         func(fixture) example { return example{"/v1/keys", `{"name":"new","role":"reader"}`, 201} },
	"GET /v1/keys":          func(fixture) example { return example{"/v1/keys", "", 200} },
	"DELETE /v1/keys/{id}":  func(f fixture) example { return example{"/v1/keys/" + f.key, "", 200} },
	"POST /v1/webhook-endpoints": func(fixture) example {
		return example{"/v1/webhook-endpoints", `{"url":"https://shop.example/hooks","events":["order.committed"]}`, 201}
	},
	"GET /v1/webhook-endpoints":      func(fixture) example { return example{"/v1/webhook-endpoints?limit=5", "", 200} },
	"GET /v1/webhook-endpoints/{id}": func(f fixture) example { return example{"/v1/webhook-endpoints/" + f.endpoint, "", 200} },
	"PATCH /v1/webhook-endpoints/{id}": func(f fixture) example {
		return example{"/v1/webhook-endpoints/" + f.endpoint, `{"disabled":true,"description":"paused"}`, 200}
	},
	"DELETE /v1/webhook-endpoints/{id}": func(f fixture) example { return example{"/v1/webhook-endpoints/" + f.endpoint, "", 200} },
	"POST /v1/webhook-endpoints/{id}/rotate-secret": func(f fixture) example {
		return example{"/v1/webhook-endpoints/" + f.endpoint + "/rotate-secret", `{"overlap_seconds":3600}`, 200}
	},
	"GET /v1/webhook-endpoints/{id}/deliveries": func(f fixture) example {
		return example{"/v1/webhook-endpoints/" + f.endpoint + "/deliveries?status=failed", "", 200}
	},
	"POST /v1/webhook-endpoints/{id}/deliveries/{delivery}/redeliver": func(f fixture) example {
		return example{"/v1/webhook-endpoints/" + f.endpoint + "/deliveries/" + f.delivery + "/redeliver", "", 200}
	},
	"POST /v1/rooms": func(fixture) example {
		return example{"/v1/rooms", `{"id":"drop","skus":["gizmo"],"active_limit":10,"admit_per_minute":60}`, 201}
	},
	"GET /v1/rooms":        func(fixture) example { return example{"/v1/rooms?limit=5", "", 200} },
	"GET /v1/rooms/{id}":   func(f fixture) example { return example{"/v1/rooms/" + f.room, "", 200} },
	"PATCH /v1/rooms/{id}": func(f fixture) example { return example{"/v1/rooms/" + f.room, `{"active_limit":20}`, 200} },
	"POST /v1/rooms/{id}/visitors": func(f fixture) example {
		return example{"/v1/rooms/" + f.room + "/visitors", `{"visitor_id":"v-2"}`, 200}
	},
	"GET /v1/rooms/{id}/visitors/{visitor}": func(f fixture) example {
		return example{"/v1/rooms/" + f.room + "/visitors/" + f.visitor, "", 200}
	},
	"POST /v1/rooms/{id}/visitors/{visitor}/leave": func(f fixture) example {
		return example{"/v1/rooms/" + f.room + "/visitors/" + f.visitor + "/leave", "", 409} // waiting: nothing to end
	},
	"GET /v1/rooms/{id}/visitors/{visitor}/stream": func(f fixture) example {
		return example{"/v1/rooms/" + f.room + "/visitors/" + f.visitor + "/stream", "", 200}
	},
	"GET /healthz":      func(fixture) example { return example{"/healthz", "", 200} },
	"GET /readyz":       func(fixture) example { return example{"/readyz", "", 200} },
	"GET /metrics":      func(fixture) example { return example{"/metrics", "", 200} },
	"GET /openapi.json": func(fixture) example { return example{"/openapi.json", "", 200} },
}

// exampleHeaders are the header lines an example needs besides the key,
// by route: the webhook's signature.
var exampleHeaders = map[string]func(e example) []string{
	"POST " + webhookPath: func(e example) []string { return []string{signHeader(e.body, time.Now())} },
}

// headersOf returns the header lines the example e of the route pattern
// needs besides the key.
func headersOf(pattern string, e example) []string {
	if h, ok := exampleHeaders[pattern]; ok {
		return h(e)
	}
	return nil
}

// keyedAPI returns a server that takes only keys, its keys, and a
// fixture: stock of widget, the show gala (a row of 10 seats and a
// standing area of 50), and a reservation, an order, a hold, a booking
// and a payment of another reservation made with the storefront key, and
// a waiting room in front of the SKU gadget, which nothing else touches,
// with a visitor the storefront key joined. Its lock inspector is a
// memlock Locker's.
func keyedAPI(t *testing.T) (*api, keys, fixture) {
	t.Helper()
	a := newAPI(t, &apiOptions{keyed: true, server: &Options{Locks: memlock.New(nil)}})
	ks := a.makeKeys()
	admin := bearerOf(ks.admin)
	a.must(200, "PUT", "/v1/locations/east", `{"name":"East","lat":40.71,"lon":-74.01}`, admin)
	a.must(200, "PUT", "/v1/stock/widget/east", `{"on_hand":10}`, admin)
	f := fixture{key: ks.spare}
	f.endpoint = a.must(201, "POST", "/v1/webhook-endpoints", `{"url":"https://shop.example/hooks","events":["*"]}`, admin).id(t)
	f.reservation = a.must(201, "POST", "/v1/reservations", `{"lines":[{"sku":"widget","quantity":1}]}`, bearerOf(ks.storefront)).id(t)
	f.order = a.must(201, "POST", "/v1/orders", `{"lines":[{"sku":"widget","quantity":1}]}`, bearerOf(ks.storefront)).id(t)
	a.must(200, "PUT", "/v1/shows/gala", `{"name":"Gala","rows":[{"section":"stalls","row":"A","first":1,"last":10}],"areas":[{"name":"standing","capacity":50}]}`, admin)
	f.hold = a.must(201, "POST", "/v1/shows/gala/holds", `{"seats":["stalls/A/1"],"general_admission":[{"area":"standing","quantity":2}]}`, bearerOf(ks.storefront)).id(t)
	held := a.must(201, "POST", "/v1/shows/gala/holds", `{"seats":["stalls/A/10"]}`, bearerOf(ks.storefront)).id(t)
	f.booking = a.must(200, "POST", "/v1/holds/"+held+"/confirm", nil, bearerOf(ks.storefront)).id(t)
	paid := a.must(201, "POST", "/v1/reservations", `{"lines":[{"sku":"widget","quantity":1}]}`, bearerOf(ks.storefront)).id(t)
	f.payment = a.must(201, "POST", "/v1/payments", `{"target":{"kind":"reservation","id":"`+paid+`"},"amount":1250,"currency":"EUR"}`,
		bearerOf(ks.storefront)).id(t)
	f.delivery = failedDelivery(t, a.eng, f.endpoint)
	f.room = a.must(201, "POST", "/v1/rooms", `{"id":"launch","skus":["gadget"],"active_limit":5,"admit_per_minute":60}`, admin).id(t)
	f.visitor = "v-1"
	a.must(200, "POST", "/v1/rooms/"+f.room+"/visitors", `{"visitor_id":"v-1"}`, bearerOf(ks.storefront))
	return a, ks, f
}

// failedDelivery makes the events so far into deliveries to endpoint,
// and fails one as a sender would on a refusal, without a receiver.
func failedDelivery(t *testing.T, eng *engine.Engine, endpoint string) string {
	t.Helper()
	ctx := sys(t)
	if _, err := eng.FanOutWebhooks(ctx, stockade.WebhookFanOut{Limit: 1000, RetryFor: time.Hour}); err != nil {
		t.Fatal(err)
	}
	_, ds, err := eng.ClaimWebhookDeliveries(ctx, stockade.WebhookClaim{EndpointID: endpoint, Limit: 1, Lease: time.Minute})
	if err != nil || len(ds) != 1 {
		t.Fatalf("claim a delivery: %v, %d claimed", err, len(ds))
	}
	ok, err := eng.RecordWebhookAttempt(ctx, ds[0], stockade.WebhookAttempt{Result: stockade.WebhookRefused, Code: 400, Error: "refused"})
	if err != nil || !ok {
		t.Fatalf("record the attempt: %v, %v", ok, err)
	}
	return ds[0].ID
}

// everything is the whole state of a's store as the service sees it:
// what a refused request must leave as it was.
func (a *api) everything() string {
	a.t.Helper()
	ctx := sys(a.t) // the service's own view
	var b strings.Builder
	add := func(v any, err error) {
		if err != nil {
			a.t.Fatal(err)
		}
		j, _ := json.Marshal(v)
		b.Write(j)
		b.WriteByte('\n')
	}
	add(a.eng.Locations(ctx, stockade.LocationQuery{Limit: stockade.MaxLocationLimit}))
	add(a.eng.SKUs(ctx, stockade.SKUQuery{Limit: stockade.MaxSKULimit}))
	add(a.eng.Stock(ctx, "widget"))
	add(a.eng.Movements(ctx, stockade.MovementQuery{Limit: stockade.MaxMovementLimit}))
	add(a.eng.Reservations(ctx, stockade.ListQuery{Limit: stockade.MaxListLimit}))
	orders, err := a.eng.Orders(ctx, stockade.ListQuery{Limit: stockade.MaxListLimit})
	add(orders, err)
	for _, o := range orders.Orders {
		add(a.eng.Shipments(ctx, o.ID, stockade.ShipmentQuery{Limit: stockade.MaxShipmentLimit}))
	}
	add(a.eng.Keys(ctx, stockade.KeyQuery{Limit: stockade.MaxKeyLimit}))
	eps, err := a.eng.WebhookEndpoints(ctx, stockade.WebhookEndpointQuery{Limit: stockade.MaxWebhookLimit})
	add(eps, err)
	for _, ep := range eps.Endpoints {
		add(a.eng.WebhookDeliveries(ctx, ep.ID, stockade.WebhookDeliveryQuery{Limit: stockade.MaxWebhookLimit}))
	}
	add(a.eng.Show(ctx, "gala"))
	add(a.eng.Seats(ctx, "gala", stockade.SeatQuery{Limit: stockade.MaxSeatLimit}))
	add(a.eng.Payments(ctx, stockade.PaymentQuery{Limit: stockade.MaxListLimit}))
	add(a.eng.Rooms(ctx, stockade.RoomQuery{Limit: stockade.MaxRoomLimit}))
	add(a.eng.Events(ctx, stockade.DomainEventQuery{Limit: stockade.MaxEventLimit})) // holds and bookings too
	return b.String()
}

// TestRouteRoles runs every route of the route table with every kind of
// caller: no key, a revoked key, a malformed one, and a key of each
// role. The roles the route allows succeed; the others are refused, 401
// or 403, and change nothing.
func TestRouteRoles(t *testing.T) {
	t.Parallel()
	roles := map[stockade.Role]func(keys) string{
		stockade.RoleAdmin:      func(k keys) string { return k.admin },
		stockade.RoleStorefront: func(k keys) string { return k.storefront },
		stockade.RoleReader:     func(k keys) string { return k.reader },
	}
	for _, rt := range routeTable {
		ex, ok := examples[rt.pattern]
		if !ok {
			t.Errorf("route %s has no example request in examples", rt.pattern)
			continue
		}
		method, _, _ := strings.Cut(rt.pattern, " ")
		t.Run(rt.pattern, func(t *testing.T) {
			t.Parallel()
			if rt.access == public {
				a, _, f := keyedAPI(t)
				e := ex(f)
				a.must(e.status, method, e.path, orNil(e.body), headersOf(rt.pattern, e)...)
				return
			}
			a, ks, f := keyedAPI(t)
			e := ex(f)
			before := a.everything()
			refusals := []struct {
				name, header string
				status       int
			}{
				{"no key", "", 401},
				{"revoked key", bearerOf(ks.revoked), 401},
				{"unknown key", bearerOf(otherSecret(ks.admin)), 401},
				{"not bearer", "Authorization: Basic " + ks.admin, 401},
			}
			for _, role := range stockade.Roles {
				if !rt.access.allows(role) {
					refusals = append(refusals, struct {
						name, header string
						status       int
					}{string(role), bearerOf(roles[role](ks)), 403})
				}
			}
			for _, rf := range refusals {
				var hs []string
				if rf.header != "" {
					hs = append(hs, rf.header)
				}
				r := a.do(method, e.path, orNil(e.body), hs...)
				if r.status != rf.status {
					t.Errorf("%s: %s, want %d", rf.name, r, rf.status)
					continue
				}
				p := r.problem(t)
				switch rf.status {
				case 401:
					if p.Code != stockade.EUnauthenticated || !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
						t.Errorf("%s: code %q, WWW-Authenticate %q", rf.name, p.Code, r.header.Get("WWW-Authenticate"))
					}
				case 403:
					if p.Code != stockade.EForbidden || !strings.Contains(p.Detail, string(rf.name)) {
						t.Errorf("%s: %+v", rf.name, p)
					}
				}
			}
			if after := a.everything(); after != before {
				t.Errorf("refused requests changed the store:\n--- before\n%s--- after\n%s", before, after)
			}
			// Each allowed role, on a fresh server: the success may use
			// up the fixture.
			for _, role := range stockade.Roles {
				if !rt.access.allows(role) {
					continue
				}
				a, ks, f := keyedAPI(t)
				e := ex(f)
				if isStream(e.path) { // it does not end: its status only
					if status := a.streamStatus(e.path, bearerOf(roles[role](ks))); status != e.status {
						t.Errorf("%s key: %d, want %d", role, status, e.status)
					}
					continue
				}
				if r := a.do(method, e.path, orNil(e.body), bearerOf(roles[role](ks))); r.status != e.status {
					t.Errorf("%s key: %s, want %d", role, r, e.status)
				}
			}
		})
	}
	for pattern := range examples {
		if !slices.ContainsFunc(routeTable, func(rt route) bool { return rt.pattern == pattern }) {
			t.Errorf("example of %s, which is not a route", pattern)
		}
	}
}

// TestRoutePolicy checks the route table against the roles' promises: a
// reader changes nothing; a storefront reads no ledger, no keys and no
// locks, and changes only reservations, orders, holds, bookings and
// payments, and the visitors of waiting rooms, and ships none, makes no
// show and no room and reports no payment's outcome; /v1 is never public,
// but for the payment webhook, which is signed.
func TestRoutePolicy(t *testing.T) {
	t.Parallel()
	shops := func(method, path string) bool { // what a storefront may change
		for _, prefix := range []string{"/v1/reservations", "/v1/orders", "/v1/holds", "/v1/bookings"} {
			if strings.HasPrefix(path, prefix) {
				return true
			}
		}
		if method == "POST" && (path == "/v1/payments" || path == "/v1/payments/{id}/cancel") || method == "PATCH" && path == "/v1/payments/{id}" {
			return true
		}
		if method == "POST" && (path == "/v1/rooms/{id}/visitors" || path == "/v1/rooms/{id}/visitors/{visitor}/leave") {
			return true
		}
		return method == "POST" && strings.HasPrefix(path, "/v1/shows/") && strings.HasSuffix(path, "/holds")
	}
	for _, rt := range routeTable {
		method, path, _ := strings.Cut(rt.pattern, " ")
		if rt.access.allows(stockade.RoleReader) && method != "GET" {
			t.Errorf("%s: a reader may call it", rt.pattern)
		}
		if rt.access.allows(stockade.RoleStorefront) {
			if strings.HasPrefix(path, "/v1/movements") || strings.HasPrefix(path, "/v1/keys") || strings.HasPrefix(path, "/v1/locks") ||
				(method != "GET" && !shops(method, path)) ||
				strings.HasSuffix(path, "/fulfill") || (method == "POST" && strings.HasSuffix(path, "/shipments")) {
				t.Errorf("%s: a storefront may call it", rt.pattern)
			}
		}
		if rt.access == public && strings.HasPrefix(path, "/v1/") && rt.pattern != "POST "+webhookPath {
			t.Errorf("%s: public", rt.pattern)
		}
		if !rt.access.allows(stockade.RoleAdmin) && rt.access != public {
			t.Errorf("%s: an admin may not call it", rt.pattern)
		}
	}
}

// otherSecret is secret with its last four characters changed: the
// same key id, a wrong secret.
func otherSecret(secret string) string {
	tail := "aaaa"
	if strings.HasSuffix(secret, tail) {
		tail = "bbbb"
	}
	return secret[:len(secret)-len(tail)] + tail
}

// orNil is body, or nil if it is empty: a request without a body.
func orNil(body string) any {
	if body == "" {
		return nil
	}
	return body
}

// TestStorefrontSeesItsOwn: another storefront's reservations, orders,
// holds and bookings do not exist for a storefront key; an admin and a
// reader see them.
func TestStorefrontSeesItsOwn(t *testing.T) {
	t.Parallel()
	a, ks, f := keyedAPI(t)
	other := bearerOf(ks.otherShop)
	before := a.everything()
	// The fixture's ids, and ids of the same kinds that name nothing.
	missing := strings.NewReplacer(f.reservation, "res_23ocd3aaaaaaaaaaaaaaaaaaaa", f.order, "ord_23ocd3aaaaaaaaaaaaaaaaaaaa",
		f.hold, "hld_23ocd3aaaaaaaaaaaaaaaaaaaa", f.booking, "bkg_23ocd3aaaaaaaaaaaaaaaaaaaa")
	anonymous := strings.NewReplacer(f.reservation, "ID", f.order, "ID", f.hold, "ID", f.booking, "ID",
		"res_23ocd3aaaaaaaaaaaaaaaaaaaa", "ID", "ord_23ocd3aaaaaaaaaaaaaaaaaaaa", "ID",
		"hld_23ocd3aaaaaaaaaaaaaaaaaaaa", "ID", "bkg_23ocd3aaaaaaaaaaaaaaaaaaaa", "ID")
	for _, rq := range []struct{ method, path, body string }{
		{"GET", "/v1/reservations/" + f.reservation, ""},
		{"POST", "/v1/reservations/" + f.reservation + "/confirm", ""},
		{"DELETE", "/v1/reservations/" + f.reservation, ""},
		{"GET", "/v1/orders/" + f.order, ""},
		{"POST", "/v1/orders/" + f.order + "/cancel", ""},
		{"GET", "/v1/holds/" + f.hold, ""},
		{"POST", "/v1/holds/" + f.hold + "/extend", `{"ttl_seconds":1800}`},
		{"POST", "/v1/holds/" + f.hold + "/confirm", ""},
		{"DELETE", "/v1/holds/" + f.hold, ""},
		{"GET", "/v1/bookings/" + f.booking, ""},
		{"POST", "/v1/bookings/" + f.booking + "/cancel", ""},
	} {
		r := a.do(rq.method, rq.path, orNil(rq.body), other)
		if r.status != 404 || r.problem(t).Code != stockade.ENotFound {
			t.Errorf("%s %s with another storefront's key: %s, want 404", rq.method, rq.path, r)
		}
		if m := a.do(rq.method, missing.Replace(rq.path), orNil(rq.body), other); m.status != 404 ||
			anonymous.Replace(string(r.body)) != anonymous.Replace(string(m.body)) {
			t.Errorf("another's %s answers %s, a missing one %s: they must not differ", rq.path, r, m)
		}
	}
	if after := a.everything(); after != before {
		t.Errorf("refused requests changed the store:\n--- before\n%s--- after\n%s", before, after)
	}
	for _, list := range []string{"/v1/reservations", "/v1/orders"} {
		var page map[string][]map[string]any
		if err := json.Unmarshal(a.must(200, "GET", list, nil, other).body, &page); err != nil {
			t.Fatal(err)
		}
		for name, items := range page {
			if len(items) != 0 {
				t.Errorf("GET %s with another storefront's key lists %s: %v", list, name, items)
			}
		}
		for _, k := range []string{ks.storefront, ks.admin, ks.reader} {
			if r := a.must(200, "GET", list, nil, bearerOf(k)); !strings.Contains(string(r.body), f.reservation) && !strings.Contains(string(r.body), f.order) {
				t.Errorf("GET %s lists neither the reservation nor the order: %s", list, r)
			}
		}
	}
	a.must(200, "GET", "/v1/reservations/"+f.reservation, nil, bearerOf(ks.reader))
	a.must(200, "POST", "/v1/orders/"+f.order+"/cancel", nil, bearerOf(ks.storefront))
	a.must(200, "GET", "/v1/holds/"+f.hold, nil, bearerOf(ks.reader))
	a.must(200, "GET", "/v1/bookings/"+f.booking, nil, bearerOf(ks.admin))
	a.must(200, "POST", "/v1/holds/"+f.hold+"/confirm", nil, bearerOf(ks.storefront))
}

// TestIdempotencyKeysPerAPIKey: two keys that send the same
// Idempotency-Key make two orders; each key's retry replays its own.
func TestIdempotencyKeysPerAPIKey(t *testing.T) {
	t.Parallel()
	a, ks, _ := keyedAPI(t)
	body := `{"lines":[{"sku":"widget","quantity":1}]}`
	first := a.must(201, "POST", "/v1/orders", body, bearerOf(ks.storefront), "Idempotency-Key: order-1")
	second := a.must(201, "POST", "/v1/orders", body, bearerOf(ks.otherShop), "Idempotency-Key: order-1")
	if first.id(t) == second.id(t) || second.header.Get(headerReplayed) != "" {
		t.Errorf("another key's request with the same Idempotency-Key got %s, replayed %q", second, second.header.Get(headerReplayed))
	}
	again := a.must(201, "POST", "/v1/orders", body, bearerOf(ks.otherShop), "Idempotency-Key: order-1")
	if again.id(t) != second.id(t) || again.header.Get(headerReplayed) != "true" {
		t.Errorf("retry: %s, replayed %q; want %s", again, again.header.Get(headerReplayed), second.id(t))
	}
}

// TestSecretsStayHidden: key secrets appear in no log line, metric,
// error or list, whatever requests are made with them.
func TestSecretsStayHidden(t *testing.T) {
	t.Parallel()
	a, ks, _ := keyedAPI(t)
	created := a.must(201, "POST", "/v1/keys", `{"name":"fresh","role":"storefront"}`, bearerOf(ks.admin))
	var fresh struct{ ID, Secret string }
	if err := json.Unmarshal(created.body, &fresh); err != nil || !strings.HasPrefix(fresh.Secret, "stk_") {
		t.Fatalf("created key %s: %v", created, err)
	}
	secrets := []string{ks.admin, ks.storefront, ks.reader, ks.otherShop, ks.revoked, fresh.Secret}
	var seen []response
	for _, s := range secrets {
		for _, rq := range []struct{ method, path, body string }{
			{"GET", "/v1/stock/widget", ""},
			{"PUT", "/v1/stock/widget/east", `{"on_hand":12}`},
			{"GET", "/v1/keys", ""},
			{"POST", "/v1/reservations", `{"lines":[{"sku":"widget","quantity":1000}]}`},
			{"GET", "/v1/nowhere", ""},
		} {
			seen = append(seen, a.do(rq.method, rq.path, orNil(rq.body), bearerOf(s)))
			seen = append(seen, a.do(rq.method, rq.path, orNil(rq.body), bearerOf(s+"x")))
		}
	}
	a.must(200, "DELETE", "/v1/keys/"+fresh.ID, nil, bearerOf(ks.admin))
	seen = append(seen, a.do("GET", "/v1/stock/widget", nil, bearerOf(fresh.Secret)))
	seen = append(seen, a.must(200, "GET", "/metrics", nil), a.must(200, "GET", "/v1/keys", nil, bearerOf(ks.admin)))
	page, err := a.eng.Keys(sys(t), stockade.KeyQuery{})
	if err != nil {
		t.Fatal(err)
	}
	listed, _ := json.Marshal(page)
	for _, s := range secrets {
		random := s[strings.LastIndex(s, "_")+1:]
		for _, r := range seen {
			if strings.Contains(string(r.body), random) || strings.Contains(fmt.Sprint(r.header), random) {
				t.Errorf("a secret in the answer %s", r)
			}
		}
		if strings.Contains(a.logs.String(), random) {
			t.Errorf("a secret in the log:\n%s", a.logs.String())
		}
		if strings.Contains(string(listed), random) || strings.Contains(string(listed), stockade.HashKeySecret(s)) {
			t.Errorf("a secret or its hash in Keys: %s", listed)
		}
	}
	if r := seen[len(seen)-3]; r.status != 401 {
		t.Errorf("the key revoked through this server still works: %s", r)
	}
}

// TestRateLimit: a key over its rate gets 429 with Retry-After, and
// other keys are served meanwhile, each from its own bucket.
func TestRateLimit(t *testing.T) {
	t.Parallel()
	// A token every 20 s: the test's requests take seconds on a machine
	// busy with other tests, and a token that came back while they ran
	// would let the greedy key through where it checks it is refused.
	a := newAPI(t, &apiOptions{keyed: true, server: &Options{RateLimit: 0.05, RateBurst: 5}})
	ks := a.makeKeys()
	a.must(200, "PUT", "/v1/locations/east", `{"name":"East","lat":40.71,"lon":-74.01}`, bearerOf(ks.admin))
	a.must(200, "PUT", "/v1/stock/widget/east", `{"on_hand":10}`, bearerOf(ks.admin))
	greedy, patient := bearerOf(ks.storefront), bearerOf(ks.otherShop)
	var limited []response
	for range 20 {
		if r := a.do("POST", "/v1/reservations", `{"lines":[{"sku":"widget","quantity":1}]}`, greedy); r.status == 429 {
			limited = append(limited, r)
		}
	}
	if len(limited) < 20-5-1 { // the burst, and a token refilled if the requests took 20 s
		t.Fatalf("%d of 20 requests over a 5-request burst at 0.05/s were limited", len(limited))
	}
	for _, r := range limited {
		p := r.problem(t)
		secs, err := strconv.Atoi(r.header.Get("Retry-After"))
		if p.Code != stockade.ERateLimited || err != nil || secs < 1 || secs > 20 {
			t.Errorf("limited: code %q, Retry-After %q; want %s and 1 to 20 (a token comes every 20 s)", p.Code, r.header.Get("Retry-After"), stockade.ERateLimited)
		}
	}
	// The limited requests changed nothing: the stock is down by the
	// successful ones only.
	var stock struct{ Totals struct{ Reserved int64 } }
	if err := json.Unmarshal(a.must(200, "GET", "/v1/stock/widget", nil, bearerOf(ks.reader)).body, &stock); err != nil {
		t.Fatal(err)
	}
	if want := int64(20 - len(limited)); stock.Totals.Reserved != want {
		t.Errorf("reserved %d after %d successful reservations", stock.Totals.Reserved, want)
	}
	// The other key's bucket is full: its burst goes through at once,
	// from several goroutines, while the greedy key is still refused.
	var wg sync.WaitGroup
	statuses := make([]int, 5)
	for i := range statuses {
		wg.Go(func() { statuses[i] = a.do("GET", "/v1/stock/widget", nil, patient).status })
	}
	wg.Wait()
	if slices.ContainsFunc(statuses, func(s int) bool { return s != 200 }) {
		t.Errorf("the other key's burst: %v, want all 200", statuses)
	}
	if r := a.do("GET", "/v1/stock/widget", nil, greedy); r.status != 429 {
		t.Errorf("the greedy key right after: %s, want 429", r)
	}
	// A key with a rate of its own.
	k, secret, err := a.eng.CreateKey(sys(t), stockade.NewKeyRequest{Name: "fast", Role: stockade.RoleReader, RateLimit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if r := a.do("GET", "/v1/stock/widget", nil, bearerOf(secret)); r.status != 200 {
			t.Fatalf("request %d of key %s with 1000/s: %s", i, k.Name, r)
		}
	}
}

// TestNoRateLimitByDefault: a server given no rate limit limits no key
// without a rate of its own: a shop's back end calls with one key for all
// its customers, and 300 requests at once are all served. Their deadline
// is long: the test is of the limit, and 300 requests at once on a busy
// machine can take longer than the default's 10 s.
func TestNoRateLimitByDefault(t *testing.T) {
	t.Parallel()
	a := newAPI(t, &apiOptions{keyed: true, server: &Options{RequestTimeout: 2 * time.Minute}})
	ks := a.makeKeys()
	var wg sync.WaitGroup
	statuses := make([]int, 300)
	for i := range statuses {
		wg.Go(func() { statuses[i] = a.do("GET", "/v1/locations", nil, bearerOf(ks.storefront)).status })
	}
	wg.Wait()
	if slices.ContainsFunc(statuses, func(s int) bool { return s != 200 }) {
		t.Errorf("300 requests of one key at once: some not 200: %v", statuses)
	}
}

// TestAuthorizationHeader: the forms of the header that are refused, and
// the challenge that says why.
func TestAuthorizationHeader(t *testing.T) {
	t.Parallel()
	a, ks, _ := keyedAPI(t)
	for _, tc := range []struct {
		name   string
		header []string
		status int
	}{
		{"lower-case scheme", []string{"Authorization: bearer " + ks.reader}, 200},
		{"two spaces", []string{"Authorization: Bearer  " + ks.reader}, 200},
		{"twice", []string{bearerOf(ks.reader), bearerOf(ks.reader)}, 401},
		{"empty", []string{"Authorization: Bearer "}, 401},
		{"no scheme", []string{"Authorization: " + ks.reader}, 401},
		{"a space inside", []string{"Authorization: Bearer stk_a b"}, 401},
		{"too long", []string{bearerOf("stk_" + strings.Repeat("a", 300))}, 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := a.do("GET", "/v1/stock/widget", nil, tc.header...)
			if r.status != tc.status {
				t.Fatalf("%s, want %d", r, tc.status)
			}
			if tc.status == 401 && r.header.Get("WWW-Authenticate") != `Bearer realm="stockade", error="invalid_token"` {
				t.Errorf("WWW-Authenticate %q", r.header.Get("WWW-Authenticate"))
			}
		})
	}
	if r := a.do("GET", "/v1/stock/widget", nil); r.header.Get("WWW-Authenticate") != `Bearer realm="stockade"` {
		t.Errorf("no key: WWW-Authenticate %q, want a bare challenge", r.header.Get("WWW-Authenticate"))
	}
}

// countedKeys counts the reads of keys that reach the service, and holds
// each until release closes.
type countedKeys struct {
	stockade.KeyService
	reads   atomic.Int64
	release chan struct{}
}

func (k *countedKeys) Authenticate(ctx context.Context, secret string) (stockade.APIKey, error) {
	k.reads.Add(1)
	<-k.release
	return k.KeyService.Authenticate(ctx, secret)
}

// TestKeyCacheReadsOnceForABurst: requests of one key that miss the
// cache at once share one read of the store, and all get the key.
func TestKeyCacheReadsOnceForABurst(t *testing.T) {
	t.Parallel()
	a := newAPI(t, &apiOptions{keyed: true})
	ks := a.makeKeys()
	keys := &countedKeys{KeyService: a.eng, release: make(chan struct{})}
	c := keyCache{ttl: time.Minute, m: map[string]cachedKey{}, revoked: map[string]bool{}}
	const callers = 50
	var started, wrong atomic.Int64
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			started.Add(1)
			k, err := c.get(t.Context(), keys, ks.storefront)
			if err != nil || k.Role != stockade.RoleStorefront {
				wrong.Add(1)
			}
		})
	}
	for started.Load() < callers {
		runtime.Gosched()
	}
	close(keys.release)
	wg.Wait()
	if wrong.Load() != 0 {
		t.Errorf("%d of %d callers did not get the storefront key", wrong.Load(), callers)
	}
	// Without sharing, each caller reads; a caller that reaches the
	// cache between the read's answer and its entry may read once more.
	if n := keys.reads.Load(); n > callers/10 {
		t.Errorf("%d callers missing the cache at once read the key %d times, want about once", callers, n)
	}
}
