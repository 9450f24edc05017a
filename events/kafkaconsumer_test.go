package events_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/events"
	"github.com/stockade/stockade/internal/testkit"
)

// commandTopic creates a commands' topic of partitions partitions.
func commandTopic(t *testing.T, cl *kgo.Client, topic string, partitions int32) {
	t.Helper()
	if _, err := kadm.NewClient(cl).CreateTopic(sys(t), partitions, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
}

// sendKafka writes a command to topic, keyed by key, with name as its
// Stockade-Command and id as its Stockade-Msg-Id, each unless empty.
func sendKafka(t *testing.T, cl *kgo.Client, topic, name, id, key, body string) {
	t.Helper()
	r := &kgo.Record{Topic: topic, Key: []byte(key), Value: []byte(body)}
	if name != "" {
		r.Headers = append(r.Headers, kgo.RecordHeader{Key: events.HeaderCommand, Value: []byte(name)})
	}
	if id != "" {
		r.Headers = append(r.Headers, kgo.RecordHeader{Key: events.HeaderMsgID, Value: []byte(id)})
	}
	if err := cl.ProduceSync(sys(t), r).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// runningKafka runs c until the returned stop is called, which returns
// once Run has.
func runningKafka(t *testing.T, c *events.KafkaConsumer) (stop func()) {
	ctx, cancel := context.WithCancel(sys(t))
	done := make(chan struct{})
	go func() { c.Run(ctx); close(done) }()
	return func() { cancel(); <-done }
}

// kafkaConsumer returns a consumer of k's topic in group, applying to svc.
func kafkaConsumer(k *testkit.Kafka, svc stockade.StockService, topic, group string) *events.KafkaConsumer {
	return events.NewKafkaConsumer(svc, []kgo.Opt{kgo.SeedBrokers(k.Addrs()...)},
		&events.KafkaConsumerOptions{Topic: topic, Group: group, DeadLetter: topic + ".deadletter"})
}

// sum adds up the counts of consumers.
func sum(cs ...*events.KafkaConsumer) (applied, duplicates, deadLetters, retries int64) {
	for _, c := range cs {
		a, d, dl, r := c.Counts()
		applied, duplicates, deadLetters, retries = applied+a, duplicates+d, deadLetters+dl, retries+r
	}
	return
}

// TestKafkaConsumerAppliesOnce: every command written three times, each
// round in shuffled order, to three partitions, is applied once by two
// consumers of one group, the second joining while the first is at work;
// the stock and the ledger reconcile.
func TestKafkaConsumerAppliesOnce(t *testing.T) {
	t.Parallel()
	k, cl := kafkaBroker(t)
	commandTopic(t, cl, "cmds-once", 3)
	st := openPostgres(t)
	eng := shop(t, st, 1)
	res := held(t, eng, 30)
	for range 3 {
		for _, i := range rand.Perm(len(res)) {
			name := events.CommandConfirm
			if i%2 == 1 {
				name = events.CommandRelease
			}
			sendKafka(t, cl, "cmds-once", name, fmt.Sprintf("cmd-%d", i), res[i], fmt.Sprintf(`{"reservation_id":%q}`, res[i]))
		}
	}
	a := kafkaConsumer(k, eng, "cmds-once", "once")
	stopA := runningKafka(t, a)
	until(t, "a first command handled", func() bool { a, d, _, _ := sum(a); return a+d > 0 })
	b := kafkaConsumer(k, eng, "cmds-once", "once")
	stopB := runningKafka(t, b)
	until(t, "90 deliveries handled", func() bool { a, d, dl, _ := sum(a, b); return a+d+dl >= 90 })
	stopA()
	stopB()
	if a, d, dl, _ := sum(a, b); a != 30 || d != 60 || dl != 0 {
		t.Errorf("applied %d, duplicates %d, dead letters %d; want 30, 60, 0", a, d, dl)
	}
	confirmedOrReleased(t, eng, res)
	settled(t, eng, 15, 15)
}

// gate is a service whose first Confirm waits until open is closed: a
// batch held in the middle.
type gate struct {
	stockade.StockService
	first   sync.Once
	waiting chan struct{} // closed when the first Confirm waits
	open    chan struct{}
}

func (g *gate) Confirm(ctx context.Context, id string, idem *stockade.Idempotency) (stockade.Order, error) {
	g.first.Do(func() {
		close(g.waiting)
		<-g.open
	})
	return g.StockService.Confirm(ctx, id, idem)
}

// TestKafkaConsumerRebalance: a second consumer joins the group while the
// first is in the middle of a batch; the group rebalances only once the
// batch is committed, so no command is handled twice and none is lost,
// and the newcomer then gets partitions of its own.
func TestKafkaConsumerRebalance(t *testing.T) {
	t.Parallel()
	k, cl := kafkaBroker(t)
	commandTopic(t, cl, "cmds-rebalance", 2)
	st := openPostgres(t)
	eng := shop(t, st, 1)
	res := held(t, eng, 40)
	for i, id := range res[:20] {
		sendKafka(t, cl, "cmds-rebalance", events.CommandConfirm, "c-"+strconv.Itoa(i), id, fmt.Sprintf(`{"reservation_id":%q}`, id))
	}
	var joins atomic.Int64
	k.Cluster().ControlKey(int16(kmsg.JoinGroup), func(kmsg.Request) (kmsg.Response, error, bool) {
		k.Cluster().KeepControl()
		joins.Add(1)
		return nil, nil, false // only counted: the cluster answers it
	})
	g := &gate{StockService: eng, waiting: make(chan struct{}), open: make(chan struct{})}
	a := kafkaConsumer(k, g, "cmds-rebalance", "rebalance")
	stopA := runningKafka(t, a)
	<-g.waiting
	before := joins.Load()
	b := kafkaConsumer(k, eng, "cmds-rebalance", "rebalance")
	stopB := runningKafka(t, b)
	until(t, "the second consumer asks to join", func() bool { return joins.Load() > before })
	close(g.open)
	until(t, "the first 20 applied", func() bool { a, d, dl, _ := sum(a, b); return a+d+dl >= 20 })
	// The rest go to both once each has a partition: until then the
	// first may take them all.
	until(t, "a partition each", func() bool { return groupSpread(t, cl, "rebalance") == 2 })
	for i, id := range res[20:] {
		sendKafka(t, cl, "cmds-rebalance", events.CommandConfirm, "c-"+strconv.Itoa(20+i), id, fmt.Sprintf(`{"reservation_id":%q}`, id))
	}
	until(t, "40 applied", func() bool { a, d, dl, _ := sum(a, b); return a+d+dl >= 40 })
	stopA()
	stopB()
	if ap, d, dl, r := sum(a, b); ap != 40 || d != 0 || dl != 0 || r != 0 {
		t.Errorf("applied %d, duplicates %d, dead letters %d, retries %d; want 40, 0, 0, 0", ap, d, dl, r)
	}
	if ap, _, _, _ := b.Counts(); ap == 0 {
		t.Error("the second consumer applied nothing: it got no partition")
	}
	settled(t, eng, 40, 0)
}

// groupSpread returns how many members of group have partitions
// assigned, in a stable group; 0 while it rebalances.
func groupSpread(t *testing.T, cl *kgo.Client, group string) int {
	t.Helper()
	described, err := kadm.NewClient(cl).DescribeGroups(sys(t), group)
	if err != nil {
		return 0
	}
	g, ok := described[group]
	if !ok || g.Err != nil || g.State != "Stable" {
		return 0
	}
	n := 0
	for _, m := range g.Members {
		if a, ok := m.Assigned.AsConsumer(); ok {
			for _, topic := range a.Topics {
				if len(topic.Partitions) > 0 {
					n++
					break
				}
			}
		}
	}
	return n
}

// TestKafkaConsumerLostAck: a command whose effect committed but which
// failed as if the connection was lost after the commit is tried again
// and changes nothing.
func TestKafkaConsumerLostAck(t *testing.T) {
	t.Parallel()
	k, cl := kafkaBroker(t)
	commandTopic(t, cl, "cmds-lost", 1)
	st := openSQLite(t)
	eng := shop(t, st, 1)
	res := held(t, eng, 3)
	for _, id := range res {
		sendKafka(t, cl, "cmds-lost", events.CommandConfirm, "", id, fmt.Sprintf(`{"reservation_id":%q}`, id))
	}
	svc := &lostAck{StockService: eng}
	c := kafkaConsumer(k, svc, "cmds-lost", "lost")
	stop := runningKafka(t, c)
	until(t, "three commands answered again", func() bool { _, d, _, _ := c.Counts(); return d == 3 })
	stop()
	if a, d, dl, r := c.Counts(); svc.lost.Load() != 3 || a != 0 || d != 3 || dl != 0 || r != 3 {
		t.Errorf("lost %d acks; applied %d, duplicates %d, dead letters %d, retries %d; want 3, 0, 3, 0, 3", svc.lost.Load(), a, d, dl, r)
	}
	settled(t, eng, 3, 0)
}

// TestKafkaConsumerDeadLetters: commands that can never apply go to the
// dead-letter topic with their reason and origin, once, and change
// nothing; the consumer goes on past them.
func TestKafkaConsumerDeadLetters(t *testing.T) {
	t.Parallel()
	k, cl := kafkaBroker(t)
	commandTopic(t, cl, "cmds-dead", 1)
	st := openSQLite(t)
	eng := shop(t, st, 1)
	res := held(t, eng, 2)
	if _, err := eng.Release(sys(t), res[0], nil); err != nil {
		t.Fatal(err)
	}
	cases := append(badCommands(res[0]),
		badCommand{"", `{"reservation_id":"x"}`, stockade.EInvalid}, // no Stockade-Command
		badCommand{events.CommandPaymentOutcome, `{"payment":"nobody"}`, stockade.EInvalid},
	)
	for i, tc := range cases {
		sendKafka(t, cl, "cmds-dead", tc.name, fmt.Sprintf("bad-%d", i), "k", tc.body)
	}
	sendKafka(t, cl, "cmds-dead", events.CommandConfirm, "good", "k", fmt.Sprintf(`{"reservation_id":%q}`, res[1]))
	c := kafkaConsumer(k, eng, "cmds-dead", "dead")
	stop := runningKafka(t, c)
	until(t, "six dead letters and one applied", func() bool { a, _, dl, _ := c.Counts(); return dl == 6 && a == 1 })
	stop()
	letters := kafkaRecords(t, k, "cmds-dead.deadletter")
	if len(letters) != len(cases) {
		t.Fatalf("%d dead letters, want %d", len(letters), len(cases))
	}
	for i, tc := range cases {
		r := letters[i] // one key, one partition: in order
		if header(r, events.HeaderMsgID) != fmt.Sprintf("bad-%d", i) || header(r, events.HeaderDeadCode) != tc.code ||
			header(r, events.HeaderDeadReason) == "" || string(r.Value) != tc.body || string(r.Key) != "k" ||
			header(r, events.HeaderDeadTopic) != "cmds-dead" || header(r, events.HeaderDeadPartition) != "0" ||
			header(r, events.HeaderDeadOffset) != strconv.Itoa(i) {
			t.Errorf("dead letter of case %d: key %q, headers %v, body %s; want code %s", i, r.Key, r.Headers, r.Value, tc.code)
		}
	}
	settled(t, eng, 1, 1)
}

// TestKafkaConsumerPaymentOutcomes: the outcomes of 40 payments
// (processing, then succeeded or, for every fourth, failed), each written
// three times under ids of their own and shuffled over three
// partitions, are applied once each: every paid reservation confirmed
// once, every other released, and the ledger reconciles.
func TestKafkaConsumerPaymentOutcomes(t *testing.T) {
	t.Parallel()
	k, cl := kafkaBroker(t)
	commandTopic(t, cl, "cmds-pay", 3)
	st := openPostgres(t)
	eng := shop(t, st, 1)
	res := held(t, eng, 40)
	pays, sends := paidFor(t, eng, res, 3)
	for n, i := range rand.Perm(len(sends)) {
		body, _ := json.Marshal(sends[i])
		sendKafka(t, cl, "cmds-pay", events.CommandPaymentOutcome, fmt.Sprintf("msg-%d", n), sends[i].PaymentID, string(body))
	}
	c := kafkaConsumer(k, eng, "cmds-pay", "pay")
	stop := runningKafka(t, c)
	until(t, "every outcome handled", func() bool { a, _, dl, _ := c.Counts(); return a+dl >= int64(len(sends)) })
	stop()
	if a, _, dl, r := c.Counts(); a != int64(len(sends)) || dl != 0 || r != 0 {
		t.Errorf("applied %d, dead letters %d, retries %d; want %d, 0, 0", a, dl, r, len(sends))
	}
	paymentsSettled(t, eng, pays, res)
	settled(t, eng, 30, 10)
}

// TestKafkaConsumerStopsWhileBrokersHang: a consumer whose brokers do not
// answer its leaving the group returns from Run once its context ends.
func TestKafkaConsumerStopsWhileBrokersHang(t *testing.T) {
	t.Parallel()
	k, cl := kafkaBroker(t)
	commandTopic(t, cl, "cmds-gone", 1)
	st := openSQLite(t)
	eng := shop(t, st, 1)
	res := held(t, eng, 1)
	sendKafka(t, cl, "cmds-gone", events.CommandConfirm, "c", res[0], fmt.Sprintf(`{"reservation_id":%q}`, res[0]))
	c := kafkaConsumer(k, eng, "cmds-gone", "gone")
	ctx, cancel := context.WithCancel(sys(t))
	var done atomic.Bool
	go func() { c.Run(ctx); done.Store(true) }()
	until(t, "the command applied", func() bool { a, _, _, _ := c.Counts(); return a == 1 })
	// The brokers take the request to leave the group and never answer
	// it, as brokers that hang do.
	k.Cluster().ControlKey(int16(kmsg.LeaveGroup), func(kmsg.Request) (kmsg.Response, error, bool) {
		k.Cluster().KeepControl()
		return nil, nil, true
	})
	cancel()
	until(t, "Run returned", done.Load)
}
