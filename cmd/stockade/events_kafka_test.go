package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/httpapi"
	"github.com/stockade/stockade/internal/testkit"
)

// kafkaClient returns a client of k, closed when the test ends.
func kafkaClient(t *testing.T, k *testkit.Kafka) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(k.Addrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// topicEvents returns the events of every record of topic, partition by
// partition in offset order, or nil if it does not exist yet.
func topicEvents(t *testing.T, k *testkit.Kafka, topic string) []stockade.DomainEvent {
	t.Helper()
	cl := kafkaClient(t, k)
	ends, err := kadm.NewClient(cl).ListEndOffsets(t.Context(), topic)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int32]int64{}
	start := map[int32]kgo.Offset{}
	total := int64(0)
	ends.Each(func(o kadm.ListedOffset) {
		if o.Err == nil && o.Offset > 0 {
			want[o.Partition], start[o.Partition] = o.Offset, kgo.NewOffset().AtStart()
			total += o.Offset
		}
	})
	if total == 0 {
		return nil
	}
	rd, err := kgo.NewClient(kgo.SeedBrokers(k.Addrs()...), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: start}))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	by := map[int32][]stockade.DomainEvent{}
	for n := int64(0); n < total; {
		fs := rd.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("topic %s: %d of %d records read within a minute", topic, n, total)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset >= want[r.Partition] {
				return
			}
			var ev stockade.DomainEvent
			if err := json.Unmarshal(r.Value, &ev); err != nil {
				t.Errorf("record %d@%d: %v", r.Partition, r.Offset, err)
			}
			by[r.Partition] = append(by[r.Partition], ev)
			n++
		})
	}
	var evs []stockade.DomainEvent
	for _, p := range slices.Sorted(maps.Keys(by)) {
		evs = append(evs, by[p]...)
	}
	return evs
}

// firstCopies returns evs without the copies of an event that came
// before, and how many there were.
func firstCopies(evs []stockade.DomainEvent) (first []stockade.DomainEvent, copies int) {
	seen := map[string]bool{}
	for _, ev := range evs {
		if seen[ev.ID] {
			copies++
			continue
		}
		seen[ev.ID] = true
		first = append(first, ev)
	}
	return first, copies
}

// TestKafkaKilledBeforePublish: serve -events kafka:// commits events
// while the brokers refuse its writes, so the relay is sending them and
// the checkpoint has not moved; serve is killed there with SIGKILL and
// the brokers take writes again. The next process publishes every event:
// the topic (one partition) holds the outbox in its order, each event
// once by id, and /metrics shows the relay's lag and count.
func TestKafkaKilledBeforePublish(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	k := testkit.NewKafka(t, nil)
	store := "sqlite:" + filepath.Join(t.TempDir(), "relay.db")
	args := []string{"-store", store, "-events", k.URL()}
	p := startProcess(t, args...)
	c := httpapi.NewClient("http://"+p.addr, httpClient)
	ctx := t.Context()
	stockUp(t, c, "widget", 1000)
	waitFor(t, "the first events published", func() bool { return len(topicEvents(t, k, "stockade.events")) >= 2 })

	k.RefuseWrites(true)
	const writes = 40
	for range writes {
		if _, err := c.Reserve(ctx, stockade.ReserveRequest{Lines: []stockade.Line{{SKU: "widget", Quantity: 1}}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "a lag on /metrics", func() bool {
		code, body := get(t, "http://"+p.addr+"/metrics")
		return code == 200 && strings.Contains(body, "stockade_events_relay_lag_seconds") &&
			!strings.Contains(body, "stockade_events_relay_lag_seconds 0\n")
	})
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	p.cmd.Wait()
	k.RefuseWrites(false)
	before := len(topicEvents(t, k, "stockade.events"))

	p = startProcess(t, args...)
	c = httpapi.NewClient("http://"+p.addr, httpClient)
	if _, err := c.AdjustStock(ctx, stockade.Key{SKU: "widget", Location: "dc"}, 1, "last", nil); err != nil {
		t.Fatal(err)
	}
	want := outboxEvents(t, c)
	if len(want) < writes {
		t.Fatalf("only %d events in the outbox after %d reservations", len(want), writes)
	}
	var got []stockade.DomainEvent
	copies := 0
	waitFor(t, "every event published", func() bool {
		got, copies = firstCopies(topicEvents(t, k, "stockade.events"))
		return len(got) >= len(want)
	})
	t.Logf("%d events in the outbox; the topic had %d records when the brokers took writes again, %d copies", len(want), before, copies)
	if len(got) != len(want) || copies > before {
		t.Fatalf("the topic holds %d events and %d copies, the outbox %d; the dead process had written %d", len(got), copies, len(want), before)
	}
	for i := range want {
		if got[i].ID != want[i].ID {
			t.Fatalf("event %d: the topic holds %s (%s), the outbox %s (%s)", i, got[i].ID, got[i].Type, want[i].ID, want[i].Type)
		}
	}
	waitFor(t, "the relay caught up on /metrics", func() bool {
		code, body := get(t, "http://"+p.addr+"/metrics")
		return code == 200 && strings.Contains(body, "stockade_events_relay_lag_seconds 0\n") &&
			strings.Contains(body, "stockade_events_published_total")
	})
}

// TestKafkaKilledBeforeCommit: every command is written three times, each
// round shuffled, over three partitions. serve applies them while the
// group coordinator refuses its offset commits, so that every effect has
// committed and no offset has; serve is killed there with SIGKILL, and a
// new process, whose commits go through, gets every record again. Each
// command is applied once: every reservation is confirmed or released as
// its command says, the ledger has one row of it each, nothing went to
// the dead letters, and the store reconciles.
func TestKafkaKilledBeforeCommit(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	k := testkit.NewKafka(t, nil)
	cl := kafkaClient(t, k)
	ctx := t.Context()
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(ctx, 3, 1, nil, "stockade.commands"); err != nil {
		t.Fatal(err)
	}
	var refuse atomic.Bool
	refuse.Store(true)
	var refused atomic.Int64
	k.Cluster().ControlKey(int16(kmsg.OffsetCommit), func(req kmsg.Request) (kmsg.Response, error, bool) {
		k.Cluster().KeepControl()
		if !refuse.Load() {
			return nil, nil, false
		}
		refused.Add(1)
		creq := req.(*kmsg.OffsetCommitRequest)
		resp := creq.ResponseKind().(*kmsg.OffsetCommitResponse)
		for _, rt := range creq.Topics {
			st := kmsg.NewOffsetCommitResponseTopic()
			st.Topic = rt.Topic
			for _, rp := range rt.Partitions {
				sp := kmsg.NewOffsetCommitResponseTopicPartition()
				sp.Partition, sp.ErrorCode = rp.Partition, 30 // GROUP_AUTHORIZATION_FAILED: not retried
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})

	store := newDatabase(t)
	p := startProcess(t, "-store", store, "-events", k.URL())
	c := httpapi.NewClient("http://"+p.addr, httpClient)
	stockUp(t, c, "widget", 1000)
	const commands = 60
	res := reserveWidgets(t, c, commands)
	confirm := func(i int) bool { return i%3 != 0 }
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3 {
		for _, i := range rng.Perm(commands) {
			name := "reservation.release"
			if confirm(i) {
				name = "reservation.confirm"
			}
			r := &kgo.Record{Topic: "stockade.commands", Key: []byte(res[i]), Value: fmt.Appendf(nil, `{"reservation_id":%q}`, res[i]),
				Headers: []kgo.RecordHeader{{Key: "Stockade-Command", Value: []byte(name)}, {Key: "Stockade-Msg-Id", Value: fmt.Appendf(nil, "cmd-%d", i)}}}
			if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	held := func(c *httpapi.Client) int {
		page, err := c.Reservations(ctx, stockade.ListQuery{Status: string(stockade.Held), Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		return len(page.Reservations)
	}
	waitFor(t, "every command applied", func() bool { return held(c) == 0 })
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	p.cmd.Wait()
	if refused.Load() == 0 {
		t.Fatal("no offset commit was refused: the process committed nothing it could lose")
	}
	refuse.Store(false)

	p = startProcess(t, "-store", store, "-events", k.URL())
	c = httpapi.NewClient("http://"+p.addr, httpClient)
	waitFor(t, "every offset committed", func() bool {
		ends, err := adm.ListEndOffsets(ctx, "stockade.commands")
		if err != nil {
			return false
		}
		committed, err := adm.FetchOffsets(ctx, "stockade")
		if err != nil {
			return false
		}
		done := true
		ends.Each(func(o kadm.ListedOffset) {
			got, ok := committed.Lookup("stockade.commands", o.Partition)
			done = done && ok && got.At == o.Offset
		})
		return done
	})
	code, body := get(t, "http://"+p.addr+"/metrics")
	if code != 200 || !strings.Contains(body, `stockade_commands_total{outcome="duplicate"} 180`) ||
		!strings.Contains(body, `stockade_commands_total{outcome="applied"} 0`) {
		t.Errorf("the second process's commands: /metrics %d, want 180 duplicates and none applied:\n%s", code, body)
	}
	settledInLedger(t, c, settledReservations(t, c, res, confirm))
	if dl := topicEvents(t, k, "stockade.deadletter"); len(dl) != 0 {
		t.Errorf("%d dead letters, want none", len(dl))
	}
	reconcileClean(t, store)
}
