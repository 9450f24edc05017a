package events_test

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/events"
	"github.com/stockade/stockade/internal/testkit"
)

// kcat runs kcat with args and stdin, and returns its output.
func kcat(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), testkit.Kcat(t), args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("kcat %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// TestKafkaKcat checks the wire with a client the project did not write:
// kcat (librdkafka) reads every event the relay wrote, once, keyed by its
// aggregate id with its id and type in the headers, and writes commands
// that the consumer applies once, a duplicate included.
func TestKafkaKcat(t *testing.T) {
	t.Parallel()
	testkit.Kcat(t)
	k, cl := kafkaBroker(t)
	st := openSQLite(t)
	eng := shop(t, st, 1)
	res := held(t, eng, 3)
	relay := events.NewKafka(st, cl, &events.KafkaOptions{Topic: "events-kcat", Partitions: 3})
	ctx, stop := context.WithCancel(sys(t))
	done := make(chan struct{})
	go func() { relay.Run(ctx); close(done) }()
	kafkaDrained(t, st, k, "events-kcat")
	stop()
	<-done

	out := kcat(t, "", "-C", "-b", k.Seeds(), "-t", "events-kcat", "-o", "beginning", "-e", "-q",
		"-f", "%k\t%h\n")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := outbox(t, st)
	if len(lines) != len(want) {
		t.Fatalf("kcat read %d records, the outbox holds %d events:\n%s", len(lines), len(want), out)
	}
	got := map[string]string{} // the line of each event id
	for _, l := range lines {
		for h := range strings.SplitSeq(strings.SplitN(l, "\t", 2)[1], ",") {
			if id, ok := strings.CutPrefix(h, events.HeaderEventID+"="); ok {
				got[id] = l
			}
		}
	}
	for _, ev := range want {
		l := fmt.Sprintf("%s\t%s=%s,%s=%s", ev.AggregateID, events.HeaderEventID, ev.ID, events.HeaderEventType, ev.Type)
		if got[ev.ID] != l {
			t.Errorf("event %s: kcat read %q, want %q", ev.ID, got[ev.ID], l)
		}
	}

	// Commands from kcat: a confirm sent twice, and a release.
	commandTopic(t, cl, "cmds-kcat", 1)
	for _, c := range []struct{ name, id, res string }{
		{events.CommandConfirm, "kcat-1", res[0]},
		{events.CommandConfirm, "kcat-1", res[0]},
		{events.CommandRelease, "kcat-2", res[1]},
	} {
		kcat(t, fmt.Sprintf(`{"reservation_id":%q}`, c.res)+"\n", "-P", "-b", k.Seeds(), "-t", "cmds-kcat",
			"-k", c.res, "-H", events.HeaderCommand+"="+c.name, "-H", events.HeaderMsgID+"="+c.id)
	}
	c := kafkaConsumer(k, eng, "cmds-kcat", "kcat")
	stopC := runningKafka(t, c)
	until(t, "three commands handled", func() bool { a, d, dl, _ := c.Counts(); return a+d+dl >= 3 })
	stopC()
	if a, d, dl, _ := c.Counts(); a != 2 || d != 1 || dl != 0 {
		t.Errorf("applied %d, duplicates %d, dead letters %d; want 2, 1, 0", a, d, dl)
	}
	for i, want := range []stockade.ReservationStatus{stockade.Confirmed, stockade.Released, stockade.Held} {
		r, err := eng.Reservation(sys(t), res[i])
		if err != nil || r.Status != want {
			t.Errorf("reservation %d: %s, %v; want %s", i, r.Status, err, want)
		}
	}
}
