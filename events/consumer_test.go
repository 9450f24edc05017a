package events_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/events"
)

// commandStream makes the commands' stream with a short duplicate
// window, so that a test can store a message more than once, as a
// producer that sends again after the window does.
func commandStream(t *testing.T, js jetstream.JetStream) {
	t.Helper()
	if _, err := js.CreateStream(sys(t), jetstream.StreamConfig{Name: "STOCKADE_COMMANDS",
		Subjects: []string{"stockade.commands.>"}, Storage: jetstream.FileStorage, Duplicates: 100 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
}

// send publishes a command with a message id.
func send(t *testing.T, js jetstream.JetStream, name, id, body string) {
	t.Helper()
	msg := &nats.Msg{Subject: "stockade.commands." + name, Data: []byte(body), Header: nats.Header{}}
	msg.Header.Set(jetstream.MsgIDHeader, id)
	if _, err := js.PublishMsg(sys(t), msg); err != nil {
		t.Fatal(err)
	}
}

// until waits for cond, failing the test after 2 min.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	// A full suite run has taken over 30 s to handle TestConsumerPayment-
	// Outcomes' deliveries; the bound only keeps a stuck test from
	// hanging.
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 2 min", what)
		}
		time.Sleep(20 * time.Millisecond) // the consumer's counters, polled
	}
}

// running runs c until the returned stop is called, which returns once
// Run has.
func running(t *testing.T, c *events.Consumer) (stop func()) {
	ctx, cancel := context.WithCancel(sys(t))
	done := make(chan struct{})
	go func() { c.Run(ctx); close(done) }()
	return func() { cancel(); <-done }
}

// held makes n held reservations of one unit of sku-0.
func held(t *testing.T, eng *engine.Engine, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		r, err := eng.Reserve(sys(t), stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "sku-0", Quantity: 1}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = r.ID
	}
	return ids
}

// TestConsumerAppliesOnce: every command stored three times, each round in
// shuffled order, is applied once; the stock and the ledger reconcile.
func TestConsumerAppliesOnce(t *testing.T) {
	t.Parallel()
	_, js := broker(t)
	commandStream(t, js)
	st := openPostgres(t)
	eng := shop(t, st, 1)
	res := held(t, eng, 10)
	for round := range 3 {
		for _, i := range rand.Perm(len(res)) {
			name := events.CommandConfirm
			if i%2 == 1 {
				name = events.CommandRelease
			}
			send(t, js, name, fmt.Sprintf("cmd-%d", i), fmt.Sprintf(`{"reservation_id":%q}`, res[i]))
		}
		if round < 2 {
			time.Sleep(150 * time.Millisecond) // past the stream's duplicate window: the copies are stored
		}
	}
	c := events.NewConsumer(eng, js, nil)
	stop := running(t, c)
	until(t, "30 deliveries handled", func() bool { a, d, dl, _ := c.Counts(); return a+d+dl == 30 })
	stop()
	if a, d, dl, _ := c.Counts(); a != 10 || d != 20 || dl != 0 {
		t.Errorf("applied %d, duplicates %d, dead letters %d; want 10, 20, 0", a, d, dl)
	}
	confirmedOrReleased(t, eng, res)
	settled(t, eng, 5, 5)
}

// paidFor creates a payment of each reservation of res, and returns the
// payments and what the payment system reports of them, each report
// copies times: processing, then succeeded or, for every fourth payment,
// failed.
func paidFor(t *testing.T, eng *engine.Engine, res []string, copies int) ([]stockade.Payment, []stockade.PaymentOutcome) {
	t.Helper()
	pays := make([]stockade.Payment, len(res))
	var outcomes []stockade.PaymentOutcome
	for i, id := range res {
		p, err := eng.CreatePayment(sys(t), stockade.NewPaymentRequest{
			Target: stockade.PaymentTarget{Kind: stockade.PayReservation, ID: id}, Amount: 990, Currency: "EUR"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		pays[i] = p
		end := stockade.PaymentSucceeded
		if i%4 == 0 {
			end = stockade.PaymentFailed
		}
		for j, status := range []stockade.PaymentStatus{stockade.PaymentProcessing, end} {
			for range copies {
				outcomes = append(outcomes, stockade.PaymentOutcome{EventID: fmt.Sprintf("psp-%d-%d", i, j), PaymentID: p.ID, Status: status})
			}
		}
	}
	return pays, outcomes
}

// paymentsSettled checks that each payment of pays ended as paidFor's
// reports say, resolved, and its reservation res[i] with it: succeeded
// and confirmed, or, for every fourth, failed and released.
func paymentsSettled(t *testing.T, eng *engine.Engine, pays []stockade.Payment, res []string) {
	t.Helper()
	for i, p := range pays {
		got, err := eng.Payment(sys(t), p.ID)
		if err != nil {
			t.Fatal(err)
		}
		r, err := eng.Reservation(sys(t), res[i])
		if err != nil {
			t.Fatal(err)
		}
		want, wantRes := stockade.PaymentSucceeded, stockade.Confirmed
		if i%4 == 0 {
			want, wantRes = stockade.PaymentFailed, stockade.Released
		}
		if got.Status != want || r.Status != wantRes || got.Resolution == stockade.Unresolved {
			t.Errorf("payment %d: %s/%s, reservation %s; want %s, %s", i, got.Status, got.Resolution, r.Status, want, wantRes)
		}
	}
}

// confirmedOrReleased checks that every even reservation of res was
// confirmed, and every odd one released, as the commands sent said.
func confirmedOrReleased(t *testing.T, eng *engine.Engine, res []string) {
	t.Helper()
	for i, id := range res {
		r, err := eng.Reservation(sys(t), id)
		want := stockade.Confirmed
		if i%2 == 1 {
			want = stockade.Released
		}
		if err != nil || r.Status != want {
			t.Errorf("reservation %d: %s, %v; want %s", i, r.Status, err, want)
		}
	}
}

// lostAck is a service whose Confirm commits and then fails as a process
// killed before its acknowledgement would: the broker delivers the
// message again.
type lostAck struct {
	stockade.StockService
	lost atomic.Int64
}

func (l *lostAck) Confirm(ctx context.Context, id string, idem *stockade.Idempotency) (stockade.Order, error) {
	o, err := l.StockService.Confirm(ctx, id, idem)
	if err == nil && !idem.Replayed {
		l.lost.Add(1)
		return o, stockade.Errorf(stockade.EUnavailable, "the connection was lost after the commit")
	}
	return o, err
}

// TestConsumerLostAck: a command whose effect committed but whose
// acknowledgement never came is delivered again and changes nothing.
func TestConsumerLostAck(t *testing.T) {
	t.Parallel()
	_, js := broker(t)
	commandStream(t, js)
	st := openSQLite(t)
	eng := shop(t, st, 1)
	res := held(t, eng, 3)
	for i, id := range res {
		send(t, js, events.CommandConfirm, fmt.Sprintf("c-%d", i), fmt.Sprintf(`{"reservation_id":%q}`, id))
	}
	svc := &lostAck{StockService: eng}
	c := events.NewConsumer(svc, js, nil)
	stop := running(t, c)
	until(t, "three commands answered again", func() bool { _, d, _, _ := c.Counts(); return d == 3 })
	stop()
	if a, d, dl, r := c.Counts(); svc.lost.Load() != 3 || a != 0 || d != 3 || dl != 0 || r != 3 {
		t.Errorf("lost %d acks; applied %d, duplicates %d, dead letters %d, retries %d; want 3, 0, 3, 0, 3", svc.lost.Load(), a, d, dl, r)
	}
	page, err := eng.Movements(sys(t), stockade.MovementQuery{SKU: "sku-0"})
	if err != nil {
		t.Fatal(err)
	}
	confirms := 0
	for _, m := range page.Movements {
		if m.Kind == stockade.MoveConfirm {
			confirms++
		}
	}
	if confirms != 3 {
		t.Errorf("%d confirm rows in the ledger, want 3: one per reservation", confirms)
	}
}

// badCommand is a command that can never apply, and the code of its
// dead letter.
type badCommand struct{ name, body, code string }

// badCommands are the commands that either consumer sends to its dead
// letters, given released, a reservation already released.
func badCommands(released string) []badCommand {
	return []badCommand{
		{events.CommandConfirm, `{"reservation_id":"res_none"}`, stockade.ENotFound},
		{events.CommandConfirm, fmt.Sprintf(`{"reservation_id":%q}`, released), stockade.EInvalidState},
		{events.CommandRelease, `{"reservation":"x"}`, stockade.EInvalid},
		{"order.cancel", `{"reservation_id":"x"}`, stockade.EInvalid},
	}
}

// TestConsumerDeadLetters: commands that can never apply go to the dead
// letters with the reason, once, and change nothing.
func TestConsumerDeadLetters(t *testing.T) {
	t.Parallel()
	_, js := broker(t)
	commandStream(t, js)
	st := openSQLite(t)
	eng := shop(t, st, 1)
	res := held(t, eng, 1)
	if _, err := eng.Release(sys(t), res[0], nil); err != nil {
		t.Fatal(err)
	}
	cases := badCommands(res[0])
	for i, tc := range cases {
		send(t, js, tc.name, fmt.Sprintf("bad-%d", i), tc.body)
	}
	c := events.NewConsumer(eng, js, nil)
	stop := running(t, c)
	until(t, "four dead letters", func() bool { _, _, dl, _ := c.Counts(); return dl == 4 })
	stop()
	s, err := js.Stream(sys(t), "STOCKADE_COMMANDS_DEADLETTER")
	if err != nil {
		t.Fatal(err)
	}
	letters := map[string]*jetstream.RawStreamMsg{} // by message id: the workers handle them in any order
	for seq := uint64(1); seq <= 4; seq++ {
		msg, err := s.GetMsg(sys(t), seq)
		if err != nil {
			t.Fatalf("dead letter %d: %v", seq, err)
		}
		if want := "stockade.deadletter." + strings.TrimPrefix(msg.Header.Get("Stockade-Subject"), "stockade.commands."); msg.Subject != want {
			t.Errorf("dead letter %d on %s, want %s", seq, msg.Subject, want)
		}
		letters[msg.Header.Get(jetstream.MsgIDHeader)] = msg
	}
	for i, tc := range cases {
		msg := letters[fmt.Sprintf("bad-%d", i)]
		if msg == nil {
			t.Fatalf("no dead letter of case %d", i)
		}
		if msg.Header.Get("Stockade-Code") != tc.code || msg.Header.Get("Stockade-Reason") == "" || string(msg.Data) != tc.body ||
			!strings.HasSuffix(msg.Header.Get("Stockade-Subject"), tc.name) {
			t.Errorf("dead letter of case %d: headers %v, body %s", i, msg.Header, msg.Data)
		}
	}
	info, err := s.Info(sys(t))
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 4 {
		t.Errorf("the dead letters hold %d messages, want 4", info.State.Msgs)
	}
}

// TestConsumerPaymentOutcomes: the outcomes of 200 payments (processing,
// then succeeded or, for every fourth, failed), each stored three times
// under message ids of their own and all shuffled, are applied once
// each by the consumer's workers: every paid reservation is confirmed
// once, every other released, and the ledger reconciles. An outcome
// that contradicts the payment, and a malformed one, go to the dead
// letters.
func TestConsumerPaymentOutcomes(t *testing.T) {
	t.Parallel()
	_, js := broker(t)
	commandStream(t, js)
	st := openPostgres(t)
	eng := shop(t, st, 1)
	res := held(t, eng, 200)
	pays, outcomes := paidFor(t, eng, res, 3)
	sends := make([]string, len(outcomes)) // bodies
	for i, o := range outcomes {
		body, _ := json.Marshal(o)
		sends[i] = string(body)
	}
	for n, i := range rand.Perm(len(sends)) {
		send(t, js, events.CommandPaymentOutcome, fmt.Sprintf("msg-%d", n), sends[i])
	}
	send(t, js, events.CommandPaymentOutcome, "bad-1", `{"event_id":"psp-x","payment_id":"`+pays[1].ID+`","status":"failed"}`) // after succeeded
	send(t, js, events.CommandPaymentOutcome, "bad-2", `{"payment":"nobody"}`)
	// The counts below are of deliveries: a message the broker delivered
	// again after AckWait would be counted twice (and change nothing), so
	// AckWait is longer than the test may take. Under a full suite run,
	// handling these deliveries has taken over 30 s, the default.
	c := events.NewConsumer(eng, js, &events.ConsumerOptions{AckWait: 10 * time.Minute})
	stop := running(t, c)
	until(t, "every delivery handled", func() bool { a, _, dl, _ := c.Counts(); return a+dl >= int64(len(sends))+2 })
	stop()
	// bad-1 is recorded as ignored and acknowledged, as the webhook
	// answers it 200; bad-2 can never apply.
	if a, _, dl, r := c.Counts(); a != int64(len(sends))+1 || dl != 1 || r != 0 {
		t.Errorf("applied %d, dead letters %d, retries %d; want %d, 1, 0", a, dl, r, len(sends)+1)
	}
	paymentsSettled(t, eng, pays, res)
	for i, p := range pays {
		hist, err := eng.PaymentHistory(sys(t), p.ID)
		var moves, ignored int
		for _, c := range hist {
			if c.From == c.To && strings.HasPrefix(c.Reason, "ignored outcome failed (event psp-x)") {
				ignored++
			} else {
				moves++
			}
		}
		wantIgnored := 0
		if i == 1 {
			wantIgnored = 1 // bad-1: a failure after the success, recorded once and changing nothing
		}
		if err != nil || moves == 0 || moves > 2 || ignored != wantIgnored {
			t.Errorf("payment %d: history %+v, %v; want each outcome at most once, and %d ignored", i, hist, err, wantIgnored)
		}
	}
	settled(t, eng, 150, 50)
}

// settled checks that eng reconciles and that the ledger of sku-0 holds
// confirms confirm rows and releases release rows.
func settled(t *testing.T, eng *engine.Engine, confirms, releases int) {
	t.Helper()
	rep, err := eng.Reconcile(sys(t))
	if err != nil || !rep.OK {
		t.Fatalf("reconcile: %+v, %v", rep, err)
	}
	page, err := eng.Movements(sys(t), stockade.MovementQuery{SKU: "sku-0", Limit: stockade.MaxMovementLimit})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[stockade.MovementKind]int{}
	for _, m := range page.Movements {
		kinds[m.Kind]++
	}
	if kinds[stockade.MoveConfirm] != confirms || kinds[stockade.MoveRelease] != releases {
		t.Errorf("ledger: %v; want %d confirms and %d releases", kinds, confirms, releases)
	}
}
