package engine_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
)

// actors returns an admin and two storefronts, each with a key in en's
// store, and their contexts.
func (en *env) actors() (admin, shop1, shop2 context.Context) {
	en.t.Helper()
	as := func(name string, role stockade.Role) context.Context {
		k, _, err := en.eng.CreateKey(sys(en.t), stockade.NewKeyRequest{Name: name, Role: role})
		if err != nil {
			en.t.Fatal(err)
		}
		return stockade.WithActor(sys(en.t), stockade.Actor{KeyID: k.ID, Name: k.Name, Role: k.Role})
	}
	return as("ops", stockade.RoleAdmin), as("shop-1", stockade.RoleStorefront), as("shop-2", stockade.RoleStorefront)
}

// TestActors: a storefront finds only its own reservations and orders,
// under every strategy that decides confirms differently (batch decides
// them in its batch); idempotency keys are per actor; the ledger names
// the actor.
func TestActors(t *testing.T) {
	t.Parallel()
	forBackends(t, []string{engine.Atomic, engine.Batch}, func(t *testing.T, en *env) {
		admin, shop1, shop2 := en.actors()
		en.location("east", 40.71, -74.01)
		if _, err := en.eng.SetStock(admin, stockade.Key{SKU: "widget", Location: "east"}, 10, nil, nil); err != nil {
			t.Fatal(err)
		}
		req := stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "widget", Quantity: 1}}}
		r1, err := en.eng.Reserve(shop1, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		if owner, _ := stockade.ActorFrom(shop1); r1.Owner != owner.KeyID {
			t.Errorf("reservation owner %q, want %q", r1.Owner, owner.KeyID)
		}
		before := en.state()

		// Another storefront: as if it did not exist.
		notFound := func(what string, err error) {
			t.Helper()
			if stockade.ErrorCode(err) != stockade.ENotFound || !strings.Contains(err.Error(), r1.ID) {
				t.Errorf("%s of another storefront's reservation: %v, want %s", what, err, stockade.ENotFound)
			}
		}
		_, err = en.eng.Reservation(shop2, r1.ID)
		notFound("Reservation", err)
		_, err = en.eng.Confirm(shop2, r1.ID, nil)
		notFound("Confirm", err)
		_, err = en.eng.Release(shop2, r1.ID, nil)
		notFound("Release", err)
		if after := en.state(); !reflect.DeepEqual(after, before) {
			t.Fatalf("refused calls changed the store:\nbefore %+v\nafter  %+v", before, after)
		}
		if page, err := en.eng.Reservations(shop2, stockade.ListQuery{}); err != nil || len(page.Reservations) != 0 {
			t.Errorf("shop-2 lists %+v, %v; want none", page.Reservations, err)
		}
		// The owner and an admin find it.
		if _, err := en.eng.Reservation(admin, r1.ID); err != nil {
			t.Errorf("admin reads it: %v", err)
		}
		o, err := en.eng.Confirm(shop1, r1.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		if o.Owner != r1.Owner {
			t.Errorf("order owner %q, want the reservation's %q", o.Owner, r1.Owner)
		}
		_, err = en.eng.Order(shop2, o.ID)
		if stockade.ErrorCode(err) != stockade.ENotFound {
			t.Errorf("shop-2 reads shop-1's order: %v", err)
		}
		_, err = en.eng.CancelOrder(shop2, o.ID, nil, nil)
		if stockade.ErrorCode(err) != stockade.ENotFound {
			t.Errorf("shop-2 cancels shop-1's order: %v", err)
		}
		if page, err := en.eng.Orders(shop1, stockade.ListQuery{}); err != nil || len(page.Orders) != 1 || page.Orders[0].ID != o.ID {
			t.Errorf("shop-1 lists %+v, %v; want its order", page.Orders, err)
		}

		// One idempotency key, two actors: two operations.
		c1, err := en.eng.Checkout(shop1, req, key("same-key", "f"))
		if err != nil {
			t.Fatal(err)
		}
		idem := key("same-key", "f")
		c2, err := en.eng.Checkout(shop2, req, idem)
		if err != nil || idem.Replayed || c2.ID == c1.ID {
			t.Errorf("shop-2's checkout with shop-1's key: %+v replayed=%v, %v; want a new order", c2, idem.Replayed, err)
		}
		idem = key("same-key", "f")
		again, err := en.eng.Checkout(shop1, req, idem)
		if err != nil || !idem.Replayed || again.ID != c1.ID {
			t.Errorf("shop-1 retries its key: %+v replayed=%v, %v; want its first order", again, idem.Replayed, err)
		}

		// The ledger names who did what; the admin's set, each shop's sale.
		page, err := en.eng.Movements(admin, stockade.MovementQuery{})
		if err != nil {
			t.Fatal(err)
		}
		var by []string
		for _, m := range page.Movements {
			by = append(by, string(m.Kind)+":"+m.Actor)
		}
		if got, want := strings.Join(by, " "), "set:ops reserve:shop-1 confirm:shop-1 checkout:shop-1 checkout:shop-2"; got != want {
			t.Errorf("ledger actors %q, want %q", got, want)
		}
	})
}

// TestLists pages reservations and orders newest first, filtered by
// status and time.
func TestLists(t *testing.T) {
	t.Parallel()
	en := newEnv(t, backends[0], engine.Atomic, nil)
	ctx := sys(t)
	en.location("east", 40.71, -74.01)
	en.stock("widget", "east", 100)
	req := stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "widget", Quantity: 1}}}
	var made []stockade.Reservation
	for range 7 {
		r, err := en.eng.Reserve(ctx, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, r)
		en.clock.Advance(time.Second)
	}
	if _, err := en.eng.Release(ctx, made[2].ID, nil); err != nil {
		t.Fatal(err)
	}
	var got []string
	q := stockade.ListQuery{Status: string(stockade.Held), Limit: 2}
	for pages := 0; ; pages++ {
		page, err := en.eng.Reservations(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Reservations {
			got = append(got, r.ID)
		}
		if page.Next == "" {
			if pages != 2 {
				t.Errorf("%d pages after the first, want 2", pages)
			}
			break
		}
		q.Cursor = page.Next
	}
	var want []string
	for i := len(made) - 1; i >= 0; i-- {
		if i != 2 {
			want = append(want, made[i].ID)
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("held, newest first:\n got %v\nwant %v", got, want)
	}
	page, err := en.eng.Reservations(ctx, stockade.ListQuery{CreatedAfter: made[1].CreatedAt, CreatedBefore: made[3].CreatedAt})
	if err != nil || len(page.Reservations) != 2 || page.Reservations[0].ID != made[2].ID || page.Reservations[1].ID != made[1].ID {
		t.Errorf("created in [1, 3): %+v, %v", page.Reservations, err)
	}
	for _, q := range []stockade.ListQuery{
		{Status: "shipped"},
		{Limit: stockade.MaxListLimit + 1},
		{Cursor: "bm90IGEgY3Vyc29y"},
		{CreatedAfter: made[3].CreatedAt, CreatedBefore: made[1].CreatedAt},
	} {
		if _, err := en.eng.Reservations(ctx, q); stockade.ErrorCode(err) != stockade.EInvalid {
			t.Errorf("Reservations(%+v): %v, want %s", q, err, stockade.EInvalid)
		}
	}
	if _, err := en.eng.Orders(ctx, stockade.ListQuery{Status: string(stockade.Held)}); stockade.ErrorCode(err) != stockade.EInvalid {
		t.Errorf("orders that are held: %v, want %s", err, stockade.EInvalid)
	}
}

// TestNoActor: a call whose context says nobody makes it, or names an
// actor without a role, is refused, reads and writes alike, and changes
// nothing; the sweeper and Authenticate, which no caller's actor can come
// with, run as the service's own.
func TestNoActor(t *testing.T) {
	t.Parallel()
	en := newEnv(t, backends[0], engine.Atomic, nil)
	en.location("east", 40.71, -74.01)
	en.stock("widget", "east", 5)
	before := en.state()
	nobody := t.Context()
	roleless := stockade.WithActor(t.Context(), stockade.Actor{KeyID: "key_x", Name: "x"})
	req := lines(line("widget", 1, ""))
	for who, ctx := range map[string]context.Context{"no actor": nobody, "an actor without a role": roleless} {
		for name, call := range map[string]func() error{
			"Reserve":  func() error { _, err := en.eng.Reserve(ctx, req, nil); return err },
			"Checkout": func() error { _, err := en.eng.Checkout(ctx, req, &stockade.Idempotency{Key: "k1"}); return err },
			"SetStock": func() error {
				_, err := en.eng.SetStock(ctx, stockade.Key{SKU: "widget", Location: "east"}, 0, nil, nil)
				return err
			},
			"Stock":     func() error { _, err := en.eng.Stock(ctx, "widget"); return err },
			"Keys":      func() error { _, err := en.eng.Keys(ctx, stockade.KeyQuery{}); return err },
			"Reconcile": func() error { _, err := en.eng.Reconcile(ctx); return err },
		} {
			if err := call(); stockade.ErrorCode(err) != stockade.EUnauthenticated || !strings.Contains(err.Error(), "WithActor") {
				t.Errorf("%s with %s: %v, want %s saying how to give one", name, who, err, stockade.EUnauthenticated)
			}
		}
	}
	if got := en.state(); !reflect.DeepEqual(got, before) {
		t.Errorf("refused calls changed the store: %+v, was %+v", got, before)
	}

	if _, err := en.eng.Sweep(nobody); err != nil {
		t.Errorf("Sweep without an actor: %v", err)
	}
	k, secret, err := en.eng.CreateKey(sys(t), stockade.NewKeyRequest{Name: "shop", Role: stockade.RoleStorefront})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := en.eng.Authenticate(nobody, secret); err != nil || got.ID != k.ID {
		t.Errorf("Authenticate without an actor = %+v, %v; want key %s", got, err, k.ID)
	}
}

// TestKeys: a key authenticates with its secret until it is revoked, and
// with nothing else.
func TestKeys(t *testing.T) {
	t.Parallel()
	en := newEnv(t, backends[0], engine.Atomic, nil)
	ctx := sys(t)
	k, secret, err := en.eng.CreateKey(ctx, stockade.NewKeyRequest{Name: "shop", Role: stockade.RoleStorefront, RateLimit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, "stk_") || strings.Contains(k.Hash, secret) || k.Hash == "" {
		t.Errorf("secret %q, hash %q", secret, k.Hash)
	}
	if got, err := en.eng.Authenticate(ctx, secret); err != nil || got.ID != k.ID || got.Role != stockade.RoleStorefront || got.RateLimit != 5 {
		t.Errorf("Authenticate = %+v, %v", got, err)
	}
	other, _, err := en.eng.CreateKey(ctx, stockade.NewKeyRequest{Name: "other", Role: stockade.RoleReader})
	if err != nil {
		t.Fatal(err)
	}
	forged := "stk_" + strings.TrimPrefix(other.ID, "key_") + secret[strings.LastIndex(secret, "_"):] // other's id, shop's random part
	// The secret with its last character changed.
	last := "a"
	if strings.HasSuffix(secret, last) {
		last = "b"
	}
	for _, bad := range []string{"", "stk_", secret + "x", secret[:len(secret)-1] + last, forged, strings.ToUpper(secret), "Bearer " + secret} {
		if _, err := en.eng.Authenticate(ctx, bad); stockade.ErrorCode(err) != stockade.EUnauthenticated {
			t.Errorf("Authenticate(%q): %v, want %s", bad, err, stockade.EUnauthenticated)
		}
	}
	if _, _, err := en.eng.CreateKey(ctx, stockade.NewKeyRequest{Name: "shop", Role: stockade.RoleAdmin}); stockade.ErrorCode(err) != stockade.EInvalidState {
		t.Errorf("a second key named shop: %v, want %s", err, stockade.EInvalidState)
	}
	for _, req := range []stockade.NewKeyRequest{{Name: "x", Role: "root"}, {Name: "", Role: stockade.RoleAdmin}, {Name: "y", Role: stockade.RoleAdmin, RateLimit: -1}} {
		if _, _, err := en.eng.CreateKey(ctx, req); stockade.ErrorCode(err) != stockade.EInvalid {
			t.Errorf("CreateKey(%+v): %v, want %s", req, err, stockade.EInvalid)
		}
	}
	revoked, err := en.eng.RevokeKey(ctx, k.ID)
	if err != nil || !revoked.Revoked() {
		t.Fatalf("RevokeKey = %+v, %v", revoked, err)
	}
	if again, err := en.eng.RevokeKey(ctx, k.ID); err != nil || !again.RevokedAt.Equal(revoked.RevokedAt) {
		t.Errorf("revoke again = %+v, %v; want the first revocation", again, err)
	}
	if _, err := en.eng.Authenticate(ctx, secret); stockade.ErrorCode(err) != stockade.EUnauthenticated {
		t.Errorf("a revoked key authenticates: %v", err)
	}
	page, err := en.eng.Keys(ctx, stockade.KeyQuery{Limit: 1})
	if err != nil || len(page.Keys) != 1 || page.Next == "" {
		t.Fatalf("first page of keys: %+v, %v", page, err)
	}
	rest, err := en.eng.Keys(ctx, stockade.KeyQuery{Cursor: page.Next})
	if err != nil || len(rest.Keys) != 1 || rest.Next != "" || rest.Keys[0].ID == page.Keys[0].ID {
		t.Errorf("second page of keys: %+v, %v", rest, err)
	}
}
