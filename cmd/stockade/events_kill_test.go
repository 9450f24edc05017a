package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/httpapi"
	"github.com/stockade/stockade/internal/testkit"
	"github.com/stockade/stockade/internal/teststore"
)

// jetStream connects to the broker n, closed when the test ends.
func jetStream(t *testing.T, n *testkit.NATS) jetstream.JetStream {
	t.Helper()
	nc, err := nats.Connect(n.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// waitFor polls cond, which reads a broker's or a service's state, until
// it holds, failing the test after a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	waitWithin(t, what, time.Minute, cond)
}

// waitWithin is waitFor with a bound of d.
func waitWithin(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, d)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// streamEvents returns the events that the stream holds, in its order, or
// nil if it does not exist yet.
func streamEvents(t *testing.T, js jetstream.JetStream, name string) []stockade.DomainEvent {
	t.Helper()
	s, err := js.Stream(t.Context(), name)
	if err != nil {
		return nil
	}
	info, err := s.Info(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var evs []stockade.DomainEvent
	for seq := info.State.FirstSeq; info.State.Msgs > 0 && seq <= info.State.LastSeq; seq++ {
		msg, err := s.GetMsg(t.Context(), seq)
		if err != nil {
			t.Fatal(err)
		}
		var ev stockade.DomainEvent
		if err := json.Unmarshal(msg.Data, &ev); err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// outboxEvents reads every event the service keeps.
func outboxEvents(t *testing.T, c *httpapi.Client) []stockade.DomainEvent {
	t.Helper()
	var evs []stockade.DomainEvent
	cursor := ""
	for {
		page, err := c.Events(t.Context(), stockade.DomainEventQuery{Cursor: cursor, Limit: stockade.MaxEventLimit})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Events) == 0 {
			return evs
		}
		evs, cursor = append(evs, page.Events...), page.Next
	}
}

// TestKilledBeforePublish: serve commits events while the broker cannot
// acknowledge them (it is paused), so that the relay has sent or is
// sending them and the checkpoint has not moved; serve is killed there
// with SIGKILL and the broker resumed. The next process publishes every
// event, and the stream holds each once, in the outbox's order: what the
// dead process had sent already is dropped by the broker as a duplicate.
func TestKilledBeforePublish(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	n := testkit.NewNATS(t)
	js := jetStream(t, n)
	// A PostgreSQL of the test's own: the test compares the stream with
	// every event of the outbox, and an event is readable only once every
	// older write transaction of the server has ended, which other tests'
	// transactions on a shared server would hold back.
	store := teststore.PostgresURLOn(t, testkit.NewPostgres(t))
	args := []string{"-store", store, "-events", n.URL()}
	p := startProcess(t, args...)
	c := httpapi.NewClient("http://"+p.addr, httpClient)
	ctx := t.Context()
	stockUp(t, c, "widget", 1000)
	waitFor(t, "the first events published", func() bool { return len(streamEvents(t, js, "STOCKADE_EVENTS")) >= 2 })

	if err := n.Pause(); err != nil {
		t.Fatal(err)
	}
	const writes = 40
	for range writes {
		if _, err := c.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "widget", Quantity: 1}}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	p.cmd.Wait()
	if err := n.Resume(); err != nil {
		t.Fatal(err)
	}
	// Whatever the dead process had sent is in the stream once the broker
	// has read it; what the next process finds there tells how much of
	// the test was the broker's duplicate window.
	before := len(streamEvents(t, js, "STOCKADE_EVENTS"))

	p = startProcess(t, args...)
	c = httpapi.NewClient("http://"+p.addr, httpClient)
	want := outboxEvents(t, c)
	waitFor(t, "every event published", func() bool { return len(streamEvents(t, js, "STOCKADE_EVENTS")) >= len(want) })
	// One more commit, and its event after it, show that the relay has
	// moved on from the events of the dead process: nothing of theirs
	// can arrive later.
	if _, err := c.AdjustStock(ctx, stockade.Key{SKU: "widget", Location: "dc"}, 1, "last", nil); err != nil {
		t.Fatal(err)
	}
	want = outboxEvents(t, c)
	waitFor(t, "the last event published", func() bool { return len(streamEvents(t, js, "STOCKADE_EVENTS")) >= len(want) })
	got := streamEvents(t, js, "STOCKADE_EVENTS")
	t.Logf("%d events in the outbox; the stream had %d when the broker resumed", len(want), before)
	if len(got) != len(want) {
		t.Fatalf("the stream holds %d events, the outbox %d", len(got), len(want))
	}
	for i := range want {
		if got[i].ID != want[i].ID {
			t.Fatalf("event %d: the stream holds %s (%s), the outbox %s (%s)", i, got[i].ID, got[i].Type, want[i].ID, want[i].Type)
		}
	}
	if len(want) < writes {
		t.Fatalf("only %d events in the outbox after %d reservations", len(want), writes)
	}
}

// TestKilledBeforeAck: every command is stored three times, each round
// in shuffled order. serve applies them; the broker is paused while it
// does, so that the commands it has taken commit and their
// acknowledgements cannot be confirmed; serve is killed there with
// SIGKILL, the broker resumed, and a new process finishes the work. Each
// command is applied once: every reservation is confirmed or released as
// its command says, the ledger has one row of it each, nothing went to
// the dead letters, and the store reconciles.
func TestKilledBeforeAck(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	n := testkit.NewNATS(t)
	js := jetStream(t, n)
	ctx := t.Context()
	commandStream(t, js)
	store := newDatabase(t)
	p := startProcess(t, "-store", store)
	c := httpapi.NewClient("http://"+p.addr, httpClient)
	stockUp(t, c, "widget", 1000)
	const commands = 60
	res := reserveWidgets(t, c, commands)
	confirm := func(i int) bool { return i%3 != 0 }
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 3 {
		for _, i := range rng.Perm(commands) {
			name := "reservation.release"
			if confirm(i) {
				name = "reservation.confirm"
			}
			msg := &nats.Msg{Subject: "stockade.commands." + name, Data: fmt.Appendf(nil, `{"reservation_id":%q}`, res[i]), Header: nats.Header{}}
			msg.Header.Set(jetstream.MsgIDHeader, fmt.Sprintf("cmd-%d", i))
			if _, err := js.PublishMsg(ctx, msg); err != nil {
				t.Fatal(err)
			}
		}
		if round < 2 {
			time.Sleep(150 * time.Millisecond) // past the stream's duplicate window: the copies are stored
		}
	}
	c = killWhileAcknowledging(t, n, js, p, store, commands)

	refs := settledReservations(t, c, res, confirm)
	settledOnce(t, c, js, store, refs)
}

// TestKilledBeforeOutcomeAck: the outcomes of 60 payments (processing,
// then succeeded or, for every third, failed) are each stored three
// times, each round shuffled. serve applies them; the broker is paused
// while it does, so that the outcomes it has taken commit and their
// acknowledgements cannot be confirmed; serve is killed there with
// SIGKILL, the broker resumed, and a new process finishes the work. Each
// outcome is applied once: every paid reservation is confirmed and every
// other released, one ledger row each, each payment's history holds each
// of its moves once, nothing went to the dead letters, and the store
// reconciles.
func TestKilledBeforeOutcomeAck(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	n := testkit.NewNATS(t)
	js := jetStream(t, n)
	ctx := t.Context()
	commandStream(t, js)
	store := newDatabase(t)
	p := startProcess(t, "-store", store)
	c := httpapi.NewClient("http://"+p.addr, httpClient)
	stockUp(t, c, "widget", 1000)
	const count = 60
	res, pays := make([]string, count), make([]string, count)
	for i := range res {
		r, err := c.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "widget", Quantity: 1}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		pay, err := c.CreatePayment(ctx, stockade.NewPaymentRequest{Target: stockade.PaymentTarget{Kind: stockade.PayReservation, ID: r.ID},
			Amount: 2500, Currency: "EUR"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res[i], pays[i] = r.ID, pay.ID
	}
	paid := func(i int) bool { return i%3 != 0 }
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 3 {
		for _, k := range rng.Perm(2 * count) {
			i, status := k/2, stockade.PaymentProcessing
			if k%2 == 1 {
				status = stockade.PaymentFailed
				if paid(i) {
					status = stockade.PaymentSucceeded
				}
			}
			body, err := json.Marshal(stockade.PaymentOutcome{EventID: fmt.Sprintf("psp-%d", k), PaymentID: pays[i], Status: status})
			if err != nil {
				t.Fatal(err)
			}
			msg := &nats.Msg{Subject: "stockade.commands.payment.outcome", Data: body, Header: nats.Header{}}
			msg.Header.Set(jetstream.MsgIDHeader, fmt.Sprintf("out-%d", k))
			if _, err := js.PublishMsg(ctx, msg); err != nil {
				t.Fatal(err)
			}
		}
		if round < 2 {
			time.Sleep(150 * time.Millisecond) // past the stream's duplicate window: the copies are stored
		}
	}
	c = killWhileAcknowledging(t, n, js, p, store, count)
	refs := settledReservations(t, c, res, paid)
	for i := range res {
		hist, err := c.PaymentHistory(ctx, pays[i])
		if err != nil {
			t.Fatal(err)
		}
		moves := map[string]int{}
		for _, h := range hist {
			moves[string(h.From)+">"+string(h.To)]++
		}
		for m, k := range moves {
			if k != 1 {
				t.Errorf("payment %d: the move %s %d times in its history", i, m, k)
			}
		}
	}
	settledOnce(t, c, js, store, refs)
}

// killWhileAcknowledging runs the commands stored on the broker n, each
// settling one of the total held reservations of store: it kills p (a
// serve that consumes nothing), then starts one that consumes, pauses
// the broker once it has settled some, so that the commands it has taken
// commit and their acknowledgements wait, kills it there with SIGKILL,
// resumes the broker and starts a third that finishes the work. It
// returns a client of the third once every command is applied and every
// delivery acknowledged.
func killWhileAcknowledging(t *testing.T, n *testkit.NATS, js jetstream.JetStream, p *process, store string, total int) *httpapi.Client {
	t.Helper()
	ctx := t.Context()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	p.cmd.Wait()
	held := func(c *httpapi.Client) int {
		page, err := c.Reservations(ctx, stockade.ListQuery{Status: string(stockade.Held), Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		return len(page.Reservations)
	}
	// One command at a time, so that the broker's pause finds commands
	// still to apply: with many workers they may all be applied at once.
	args := []string{"-store", store, "-events", n.URL(), "-events-workers", "1"}
	p = startProcess(t, args...)
	c := httpapi.NewClient("http://"+p.addr, httpClient)
	waitFor(t, "the first commands applied", func() bool { return held(c) < total })
	if err := n.Pause(); err != nil {
		t.Fatal(err)
	}
	// The consumer goes on with the messages it has taken: each commits,
	// and its acknowledgement waits for the paused broker.
	paused := held(c)
	waitFor(t, "a command applied while the broker is paused", func() bool { return held(c) < paused })
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	p.cmd.Wait()
	if err := n.Resume(); err != nil {
		t.Fatal(err)
	}

	p = startProcess(t, args...)
	c = httpapi.NewClient("http://"+p.addr, httpClient)
	t.Logf("%d of %d reservations were settled when the process was killed", total-held(c), total)
	waitFor(t, "every command applied", func() bool { return held(c) == 0 })
	cons, err := js.Consumer(ctx, "STOCKADE_COMMANDS", "stockade")
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "every delivery acknowledged", func() bool {
		info, err := cons.Info(ctx)
		return err == nil && info.NumPending == 0 && info.NumAckPending == 0
	})
	return c
}

// settledOnce checks that the ledger of widget holds one confirm or
// release row of each of refs (settledInLedger), that no command went to
// the dead letters, and that store reconciles.
func settledOnce(t *testing.T, c *httpapi.Client, js jetstream.JetStream, store string, refs []string) {
	t.Helper()
	ctx := t.Context()
	settledInLedger(t, c, refs)
	if dl, err := js.Stream(ctx, "STOCKADE_COMMANDS_DEADLETTER"); err == nil {
		if info, err := dl.Info(ctx); err != nil || info.State.Msgs != 0 {
			t.Errorf("dead letters: %+v, %v; want none", info.State, err)
		}
	}
	reconcileClean(t, store)
}

// commandStream makes the commands' stream with a short duplicate
// window, so that a command sent in rounds is stored once per round, as
// a producer that sends again after the window would have it.
func commandStream(t *testing.T, js jetstream.JetStream) {
	t.Helper()
	if _, err := js.CreateStream(t.Context(), jetstream.StreamConfig{Name: "STOCKADE_COMMANDS",
		Subjects: []string{"stockade.commands.>"}, Storage: jetstream.FileStorage, Duplicates: 100 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
}

// reserveWidgets reserves one widget n times through c, and returns the
// reservations' ids.
func reserveWidgets(t *testing.T, c *httpapi.Client, n int) []string {
	t.Helper()
	res := make([]string, n)
	for i := range res {
		r, err := c.Reserve(t.Context(), stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "widget", Quantity: 1}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res[i] = r.ID
	}
	return res
}

// settledReservations checks that each reservation of res is confirmed
// if confirmed(i), else released, and returns the references of their
// ledger rows: a released reservation's id, a confirmed one's order id.
func settledReservations(t *testing.T, c *httpapi.Client, res []string, confirmed func(i int) bool) []string {
	t.Helper()
	refs := make([]string, len(res))
	for i, id := range res {
		r, err := c.Reservation(t.Context(), id)
		want := stockade.Released
		refs[i] = id
		if confirmed(i) {
			want, refs[i] = stockade.Confirmed, r.OrderID
		}
		if err != nil || r.Status != want {
			t.Errorf("reservation %d: %s, %v; want %s", i, r.Status, err, want)
		}
	}
	return refs
}

// settledInLedger checks that the ledger of widget holds one confirm or
// release row of each of refs: a reservation's release, or the order of
// its confirm.
func settledInLedger(t *testing.T, c *httpapi.Client, refs []string) {
	t.Helper()
	ctx := t.Context()
	settled := map[string]int{}
	for m, err := range c.AllMovements(ctx, stockade.MovementQuery{SKU: "widget"}) {
		if err != nil {
			t.Fatal(err)
		}
		if m.Kind == stockade.MoveConfirm || m.Kind == stockade.MoveRelease {
			settled[m.Ref]++
		}
	}
	for i, ref := range refs {
		if settled[ref] != 1 {
			t.Errorf("reservation %d: %d confirm or release rows in the ledger, want 1", i, settled[ref])
		}
	}
}
