package engine

import (
	"context"
	"fmt"

	"github.com/stockade/stockade"
)

// ShowMismatch is a seat or a general-admission area whose state
// differs from what the show's seat history says.
type ShowMismatch struct {
	ShowID string `json:"event_id"`
	Seat   string `json:"seat,omitempty"`
	Area   string `json:"area,omitempty"`
	// Problem says what does not agree.
	Problem string `json:"problem"`
}

func (m ShowMismatch) String() string {
	what := "seat " + m.Seat
	if m.Area != "" {
		what = "area " + m.Area
	}
	return fmt.Sprintf("show %s, %s: %s", m.ShowID, what, m.Problem)
}

// reconcileShows checks every event, each in a read transaction of its
// own: the status of each seat must be where its history last moved it
// (free if it has none), each history row must start where the one before
// it ended, a held seat must name its hold and a booked one its booking,
// and each area's held and booked places must equal the sums of its
// history and stay within its capacity. It returns how many events it
// checked and what does not agree.
func (e *Engine) reconcileShows(ctx context.Context, c *call) (n int, mismatches []ShowMismatch, err error) {
	after := ""
	for {
		var evs []stockade.Show
		err := c.view(ctx, func(tx stockade.Tx) (err error) {
			evs, err = tx.ShowList(ctx, after, 100)
			return err
		})
		if err != nil || len(evs) == 0 {
			return n, mismatches, err
		}
		for _, ev := range evs {
			ms, err := e.reconcileEvent(ctx, c, ev.ID)
			if err != nil {
				return n, mismatches, err
			}
			n++
			mismatches = append(mismatches, ms...)
		}
		after = evs[len(evs)-1].ID
	}
}

func (e *Engine) reconcileEvent(ctx context.Context, c *call, id string) ([]ShowMismatch, error) {
	var (
		ev      stockade.Show
		seats   []stockade.Seat
		changes []stockade.SeatChange
	)
	err := c.view(ctx, func(tx stockade.Tx) (err error) {
		if ev, err = tx.ShowGet(ctx, stockade.ByID{ID: id}); err != nil {
			return err
		}
		if seats, err = tx.SeatList(ctx, id, stockade.SeatFilter{}); err != nil {
			return err
		}
		changes, err = tx.SeatChangeList(ctx, id, stockade.SeatChangeFilter{})
		return err
	})
	if err != nil {
		return nil, err
	}
	var ms []ShowMismatch
	bad := func(seat, area, format string, args ...any) {
		ms = append(ms, ShowMismatch{ShowID: id, Seat: seat, Area: area, Problem: fmt.Sprintf(format, args...)})
	}
	last := map[string]stockade.SeatStatus{}
	type counts struct{ held, booked int64 }
	places := map[string]counts{}
	for _, ch := range changes {
		if ch.Area != "" {
			p := places[ch.Area]
			for _, end := range []struct {
				s stockade.SeatStatus
				q int64
			}{{ch.From, -ch.Quantity}, {ch.To, ch.Quantity}} {
				switch end.s {
				case stockade.SeatHeld:
					p.held += end.q
				case stockade.SeatBooked:
					p.booked += end.q
				}
			}
			places[ch.Area] = p
			continue
		}
		from, ok := last[ch.Seat]
		if !ok {
			from = stockade.SeatFree
		}
		if ch.From != from {
			bad(ch.Seat, "", "history row %d moves it from %s, but it was %s", ch.ID, ch.From, from)
		}
		last[ch.Seat] = ch.To
	}
	for _, s := range seats {
		want, ok := last[s.ID]
		if !ok {
			want = stockade.SeatFree
		}
		if s.Status != want {
			bad(s.ID, "", "%s, but its history ends %s", s.Status, want)
		}
		switch {
		case s.Status == stockade.SeatHeld && s.HoldID == "":
			bad(s.ID, "", "held by no hold")
		case s.Status == stockade.SeatBooked && s.BookingID == "":
			bad(s.ID, "", "booked by no booking")
		}
	}
	for _, a := range ev.Areas {
		p := places[a.Name]
		if a.Held != p.held || a.Booked != p.booked {
			bad("", a.Name, "%d held and %d booked, but its history sums to %d and %d", a.Held, a.Booked, p.held, p.booked)
		}
		if a.Held+a.Booked > a.Capacity {
			bad("", a.Name, "%d held and %d booked, over its capacity of %d", a.Held, a.Booked, a.Capacity)
		}
	}
	return ms, nil
}
