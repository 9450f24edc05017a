package bench_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/internal/bench"
)

// checkRoom checks that a waiting-room result's figures are there and
// agree with each other and with the run's options.
func checkRoom(t *testing.T, res bench.Result, visitors int) *bench.RoomResult {
	t.Helper()
	rm := res.Room
	if rm == nil {
		t.Fatalf("%s: no room result", res.Strategy)
	}
	if !res.InvariantsOK || len(res.Violations) > 0 || res.Errors > 0 {
		t.Errorf("%s: invariants %v, violations %q, %d errors (%s)", res.Strategy, res.InvariantsOK, res.Violations, res.Errors, res.ErrorSample)
	}
	fates := rm.TurnedAway + rm.Failed + rm.Told + rm.Bought + rm.NoSeats + rm.StillWaiting
	switch {
	case rm.Visitors != visitors || rm.Joined+rm.TurnedAway != visitors || fates != visitors:
		t.Errorf("%s: %d visitors, %d joined, %d turned away, fates add up to %d; want %d", res.Strategy, rm.Visitors, rm.Joined, rm.TurnedAway, fates, visitors)
	case rm.JoinsPerSec <= 0 || !(0 < rm.JoinP50Ms && rm.JoinP50Ms <= rm.JoinP99Ms):
		t.Errorf("%s: %v joins/s, join p50 %v, p99 %v", res.Strategy, rm.JoinsPerSec, rm.JoinP50Ms, rm.JoinP99Ms)
	case rm.Admitted == 0 || rm.Bought == 0 || rm.Bought+rm.NoSeats > rm.Admitted:
		t.Errorf("%s: %d admitted, %d bought, %d held no seats", res.Strategy, rm.Admitted, rm.Bought, rm.NoSeats)
	case rm.Holds < rm.Bought || rm.Holds != res.Outcomes["hold:ok"]+res.Outcomes["hold:sold_out"]+res.Outcomes["hold:seats_unavailable"]+res.Outcomes["hold:admission_invalid"]:
		t.Errorf("%s: %d holds, %d visitors bought, outcomes %v", res.Strategy, rm.Holds, rm.Bought, res.Outcomes)
	case !(0 < rm.HoldP50Ms && rm.HoldP50Ms <= rm.HoldP99Ms):
		t.Errorf("%s: hold p50 %v, p99 %v", res.Strategy, rm.HoldP50Ms, rm.HoldP99Ms)
	case rm.LateAdmissions != 0 || rm.Inversions != 0:
		t.Errorf("%s: %d late admissions, %d inversions", res.Strategy, rm.LateAdmissions, rm.Inversions)
	case res.OnSale == nil || res.OnSale.Holds != res.Outcomes["hold:ok"] || res.OnSale.SeatsBooked == 0:
		t.Errorf("%s: the event's result %+v, outcomes %v", res.Strategy, res.OnSale, res.Outcomes)
	}
	switch rm.End {
	case bench.RoomEndSoldOut:
		if !rm.SoldOut || rm.SellOutSec <= 0 || rm.StillWaiting != 0 || !res.OnSale.SoldOut || rm.Bought+rm.NoSeats != rm.Admitted {
			t.Errorf("%s: sold out %v after %vs, %d still waiting, the event sold out %v, %d admitted of whom %d bought and %d did not",
				res.Strategy, rm.SoldOut, rm.SellOutSec, rm.StillWaiting, res.OnSale.SoldOut, rm.Admitted, rm.Bought, rm.NoSeats)
		}
		if rm.Told > 0 && !(0 <= rm.NoticeP50Ms && rm.NoticeP50Ms <= rm.NoticeP99Ms && rm.NoticeP99Ms <= rm.NoticeMaxMs) {
			t.Errorf("%s: notice to %d: p50 %v, p99 %v, max %v", res.Strategy, rm.Told, rm.NoticeP50Ms, rm.NoticeP99Ms, rm.NoticeMaxMs)
		}
	case bench.RoomEndStalled:
		if rm.SoldOut || rm.Stalled == "" || rm.StillWaiting == 0 || rm.Told != 0 {
			t.Errorf("%s: stalled (%q) with sold out %v, %d still waiting, %d told", res.Strategy, rm.Stalled, rm.SoldOut, rm.StillWaiting, rm.Told)
		}
	case bench.RoomEndServed:
		if rm.SoldOut || rm.StillWaiting != 0 || rm.Told != 0 {
			t.Errorf("%s: served with sold out %v, %d still waiting, %d told", res.Strategy, rm.SoldOut, rm.StillWaiting, rm.Told)
		}
	default:
		t.Errorf("%s: the pass ended %q", res.Strategy, rm.End)
	}
	return rm
}

// TestRunWaitingRoom runs the waiting-room workload on a small event: a
// crowd of 300 visitors in front of a room that lets 20 in at a time, on
// SQLite, then its baseline of 20. The room counts one seat per visitor,
// so that it admits someone while any seat is free and the event sells
// out. The test checks that the report's figures are there and agree, and
// that the invariants held; not how fast anything was.
func TestRunWaitingRoom(t *testing.T) {
	t.Parallel()
	const seats, visitors, active = 60, 300, 20
	var progress bytes.Buffer
	rep, err := bench.Run(t.Context(), &bench.Options{
		Workload:         bench.WaitingRoom,
		Store:            newStore(t),
		StoreName:        "sqlite:test.db",
		Strategies:       []string{engine.Batch},
		Stock:            seats,
		HoldTTL:          time.Second,
		Visitors:         visitors,
		Ramp:             500 * time.Millisecond,
		RoomActive:       active,
		RoomPerVisitor:   1,
		RoomAdmissionTTL: 2 * time.Second,
		Duration:         2 * time.Minute,
		Progress:         &progress,
	})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, progress.String())
	}
	if len(rep.Results) != 1 || rep.Room == nil || rep.Room.Visitors != visitors || rep.Room.ActiveLimit != active ||
		rep.Room.AdmitPerMinute != 60*active || !rep.Room.Baseline {
		t.Fatalf("report %+v, room %+v: want one result and the room asked for", rep, rep.Room)
	}
	res := rep.Results[0]
	rm := checkRoom(t, res, visitors)
	if rm.End != bench.RoomEndSoldOut || rm.Told == 0 {
		t.Errorf("the crowd's pass ended %q with %d visitors told: want it sold out, and waiting visitors told", rm.End, rm.Told)
	}
	if b := rm.Baseline; b == nil || b.Visitors != active || b.Holds == 0 || b.HoldP99Ms <= 0 || rm.HoldP99Ratio <= 0 || b.Ramp >= 500*time.Millisecond {
		t.Errorf("baseline %+v, ratio %v: want %d visitors arriving at the crowd's pace, their holds, and a ratio", b, rm.HoldP99Ratio, active)
	}
	if !strings.HasPrefix(res.Reconcile, "ok (2 shows match their seat history") {
		t.Errorf("reconcile %q, want both events matching", res.Reconcile)
	}
	checkOutputs(t, rep)
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"workload waiting-room", "60 seats, 300 visitors over 500ms", "active limit 20", "joins/s",
		"sold out ", "sold-out notice to the", "holds with the crowd:", "without it (20 visitors", "p99 ratio",
		"admission followed the promised order: 0 inversions", "seats left: 0 free"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("report does not say %q:\n%s", want, text.String())
		}
	}
	for _, want := range []string{"batch: waiting-room, 300 visitors", "batch: crowd: ", "batch: done: 300 visitors"} {
		if !strings.Contains(progress.String(), want) {
			t.Errorf("progress does not say %q:\n%s", want, progress.String())
		}
	}
}

// TestRunWaitingRoomDefaults runs the room as the workload sets it up by
// default (six seats counted per visitor) without the baseline, under a
// strategy that writes one hold at a time. The room admits a visitor for
// the last seats too, fewer than it counts per visitor, so it sells out
// rather than stalls; the figures must agree and the invariants hold.
func TestRunWaitingRoomDefaults(t *testing.T) {
	t.Parallel()
	const visitors = 100
	rep, err := bench.Run(t.Context(), &bench.Options{
		Workload:         bench.WaitingRoom,
		Store:            newStore(t),
		Strategies:       []string{engine.Atomic},
		Stock:            60,
		HoldTTL:          time.Second,
		Visitors:         visitors,
		Ramp:             200 * time.Millisecond,
		RoomActive:       10,
		RoomAdmissionTTL: 2 * time.Second,
		NoBaseline:       true,
		Duration:         2 * time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Room.PerVisitor != 6 || rep.Room.Baseline {
		t.Errorf("room %+v: want 6 seats per visitor and no baseline", rep.Room)
	}
	rm := checkRoom(t, rep.Results[0], visitors)
	if rm.Baseline != nil || rm.HoldP99Ratio != 0 {
		t.Errorf("baseline %+v, ratio %v: want none", rm.Baseline, rm.HoldP99Ratio)
	}
	if rm.End == bench.RoomEndStalled {
		t.Errorf("stalled: %q", rm.Stalled)
	}
}

func TestWaitingRoomOptionsRefused(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	room := func(o bench.Options) *bench.Options {
		o.Workload, o.Store = bench.WaitingRoom, st
		return &o
	}
	tests := []struct {
		name string
		opts *bench.Options
		want string
	}{
		{"service", &bench.Options{Workload: bench.WaitingRoom, Service: liar{}}, "in process only"},
		{"clients", room(bench.Options{Clients: 8}), "clients do not apply"},
		{"requests", room(bench.Options{Requests: 10}), "requests do not apply"},
		{"stages", room(bench.Options{Stages: []bench.Stage{{Duration: time.Second, Target: 5}}}), "stages and rates do not apply"},
		{"rate", room(bench.Options{Rate: 10}), "stages and rates do not apply"},
		{"active", room(bench.Options{RoomActive: stockade.MaxRoomActiveLimit + 1}), "active limit must be between"},
		{"rate per minute", room(bench.Options{RoomRate: -1}), "rate must be between"},
		{"per visitor", room(bench.Options{RoomPerVisitor: stockade.MaxHoldSeats + 1}), "seats per visitor must be between"},
		{"admission ttl", room(bench.Options{RoomAdmissionTTL: 1500 * time.Millisecond}), "whole seconds"},
		{"visitors", room(bench.Options{Visitors: 1_000_001}), "visitors must be between"},
		{"ramp", room(bench.Options{Ramp: time.Minute, Duration: time.Minute}), "shorter than the duration"},
		{"seats", room(bench.Options{Stock: 1}), "stock is the event's seats"},
		{"visitors elsewhere", &bench.Options{Workload: bench.OnSale, Store: st, Visitors: 10}, "the waiting-room workload's"},
		{"baseline elsewhere", &bench.Options{Workload: bench.Carts, Store: st, NoBaseline: true}, "the waiting-room workload's"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := bench.Run(t.Context(), tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Run: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
