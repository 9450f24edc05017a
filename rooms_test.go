package stockade_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stockade/stockade"
)

var t0 = time.Date(2031, 1, 2, 3, 4, 5, 0, time.UTC)

// TestRoomAdmissions: the one rule of admission, bound by whichever of
// the queue, the rate's bucket, the active limit and the stock left is
// least, and saying which when visitors are left waiting.
func TestRoomAdmissions(t *testing.T) {
	t.Parallel()
	open := stockade.Room{Status: stockade.RoomQueueing, Ordered: 100, Admitted: 10, ActiveLimit: 50,
		AdmitPerMinute: 600, PerVisitor: 2, StockFactor: 1, CreditAt: t0}
	plenty := stockade.RoomStock{Free: 1000}
	for _, c := range []struct {
		name       string
		room       func(r *stockade.Room)
		at         time.Duration
		act        stockade.RoomActivity
		stock      stockade.RoomStock
		want       int64
		wantPaused string
	}{
		{"rate: 10 a second for 2 s", nil, 2 * time.Second, stockade.RoomActivity{}, plenty, 20, ""},
		{"rate: the bucket holds 10 s", nil, time.Hour, stockade.RoomActivity{}, plenty, 50, stockade.RoomPausedActive},
		{"rate: credit kept from before", func(r *stockade.Room) { r.Credit = 3 }, 0, stockade.RoomActivity{}, plenty, 3, ""},
		{"queue: everyone waiting", func(r *stockade.Room) { r.Ordered = 15 }, time.Minute, stockade.RoomActivity{}, plenty, 5, ""},
		{"queue: no one waiting", func(r *stockade.Room) { r.Ordered = 10 }, time.Minute, stockade.RoomActivity{}, plenty, 0, ""},
		{"active: 45 of 50 in force", nil, time.Minute, stockade.RoomActivity{Active: 45}, plenty, 5, stockade.RoomPausedActive},
		{"active: full", nil, time.Minute, stockade.RoomActivity{Active: 50, Unused: 1}, plenty, 0, stockade.RoomPausedActive},
		{"stock: 21 free, 2 a visitor", nil, time.Minute, stockade.RoomActivity{}, stockade.RoomStock{Free: 21}, 11, stockade.RoomPausedStock},
		{"stock: 20 free, 2 a visitor", nil, time.Minute, stockade.RoomActivity{}, stockade.RoomStock{Free: 20}, 10, stockade.RoomPausedStock},
		{"stock: the last seat, 2 a visitor", nil, time.Minute, stockade.RoomActivity{Active: 5}, stockade.RoomStock{Free: 1, Held: 9}, 1, stockade.RoomPausedStock},
		{"stock: promised to those yet to hold", nil, time.Minute, stockade.RoomActivity{Active: 8, Unused: 8}, stockade.RoomStock{Free: 20}, 2, stockade.RoomPausedStock},
		{"stock: promised, one seat over", nil, time.Minute, stockade.RoomActivity{Active: 8, Unused: 8}, stockade.RoomStock{Free: 17}, 1, stockade.RoomPausedStock},
		{"stock: all held", nil, time.Minute, stockade.RoomActivity{Active: 3}, stockade.RoomStock{Held: 20}, 0, stockade.RoomPausedStock},
		{"stock: factor 3", func(r *stockade.Room) { r.StockFactor = 3 }, time.Minute, stockade.RoomActivity{}, stockade.RoomStock{Free: 10}, 15, stockade.RoomPausedStock},
		{"not open", func(r *stockade.Room) { r.Status = stockade.RoomScheduled }, time.Minute, stockade.RoomActivity{}, plenty, 0, ""},
		{"sold out", func(r *stockade.Room) { r.Status = stockade.RoomSoldOut }, time.Minute, stockade.RoomActivity{}, plenty, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := open
			if c.room != nil {
				c.room(&r)
			}
			n, paused := r.Admissions(t0.Add(c.at), c.act, c.stock)
			if n != c.want || paused != c.wantPaused {
				t.Fatalf("Admissions = %d, %q; want %d, %q", n, paused, c.want, c.wantPaused)
			}
			perSecond := float64(r.AdmitPerMinute) / 60
			before := min(max(1, perSecond*stockade.RoomBurst), r.Credit+c.at.Seconds()*perSecond)
			r.Admit(n, t0.Add(c.at))
			if r.Admitted != open.Admitted+n || r.Credit != before-float64(n) {
				t.Fatalf("after Admit(%d): admitted %d, credit %v; want %d, %v", n, r.Admitted, r.Credit, open.Admitted+n, before-float64(n))
			}
		})
	}
}

// TestAdmissionToken: a token checks with its room's secret for its
// visitor until it expires; anything else is refused with
// EAdmissionInvalid, saying why. The recipe the docs give a shop's front
// end (HMAC-SHA256 of "adm1." and the payload) checks it too.
func TestAdmissionToken(t *testing.T) {
	t.Parallel()
	room := stockade.Room{ID: "r1", Secret: stockade.NewRoomSecret()}
	a := stockade.Admission{RoomID: "r1", VisitorID: "v1", Position: 7, ExpiresAt: t0.Add(time.Minute)}
	token := stockade.AdmissionToken(a, room.Secret)
	got, err := stockade.VerifyAdmission(room, token, "v1", t0)
	if err != nil || got.RoomID != "r1" || got.VisitorID != "v1" || got.Position != 7 || !got.ExpiresAt.Equal(a.ExpiresAt) {
		t.Fatalf("VerifyAdmission = %+v, %v", got, err)
	}

	// The documented recipe.
	body, sig, _ := strings.Cut(strings.TrimPrefix(token, "adm1."), ".")
	mac := hmac.New(sha256.New, []byte(room.Secret))
	mac.Write([]byte("adm1." + body))
	if base64.RawURLEncoding.EncodeToString(mac.Sum(nil)) != sig {
		t.Fatalf("the token's signature is not HMAC-SHA256 of adm1. and its payload")
	}
	raw, _ := base64.RawURLEncoding.DecodeString(body)
	var claims map[string]any
	if err := json.Unmarshal(raw, &claims); err != nil || claims["room"] != "r1" || claims["visitor"] != "v1" || claims["exp"] != float64(a.ExpiresAt.Unix()) {
		t.Fatalf("the payload %s: %v", raw, err)
	}

	other := stockade.Room{ID: "r2", Secret: room.Secret} // a room sharing the secret: its id still differs
	tampered := "adm1." + base64.RawURLEncoding.EncodeToString([]byte(`{"room":"r1","visitor":"v2","position":1,"exp":99999999999}`)) + "." + sig
	for _, c := range []struct {
		name    string
		room    stockade.Room
		token   string
		visitor string
		at      time.Time
		want    string
	}{
		{"another visitor", room, token, "v2", t0, `visitor "v1", not "v2"`},
		{"expired", room, token, "v1", a.ExpiresAt, "expired"},
		{"another room", other, token, "v1", t0, `room "r1", not "r2"`},
		{"another secret", stockade.Room{ID: "r1", Secret: stockade.NewRoomSecret()}, token, "v1", t0, "signature"},
		{"payload changed", room, tampered, "v2", t0, "signature"},
		{"not a token", room, "eyJhbGciOi", "v1", t0, "not a token"},
		{"bad payload", room, "adm1.!!!.x", "v1", t0, "base64url"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := stockade.VerifyAdmission(c.room, c.token, c.visitor, c.at)
			if stockade.ErrorCode(err) != stockade.EAdmissionInvalid || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("VerifyAdmission: %v; want %s saying %q", err, stockade.EAdmissionInvalid, c.want)
			}
		})
	}
}

// TestRoomTicket: what a visitor learns of its place in each state of the
// room.
func TestRoomTicket(t *testing.T) {
	t.Parallel()
	r := stockade.Room{ID: "r", Secret: "s", Status: stockade.RoomQueueing, OpensAt: t0, AdmitPerMinute: 60, Joined: 10, Ordered: 10, Admitted: 3}
	waiting := r.Ticket(stockade.RoomVisitor{VisitorID: "v", Position: 7}, t0)
	if waiting.Status != stockade.TicketWaiting || waiting.Ahead != 3 || waiting.EstimatedWait != 4*time.Second || waiting.Token != "" {
		t.Errorf("waiting: %+v", waiting)
	}
	admitted := r.Ticket(stockade.RoomVisitor{VisitorID: "v", Position: 2, AdmittedAt: t0, ExpiresAt: t0.Add(time.Minute)}, t0)
	if admitted.Status != stockade.TicketAdmitted || admitted.Token == "" || !admitted.ExpiresAt.Equal(t0.Add(time.Minute)) {
		t.Errorf("admitted: %+v", admitted)
	}
	if _, err := stockade.VerifyAdmission(r, admitted.Token, "v", t0); err != nil {
		t.Errorf("the admitted ticket's token: %v", err)
	}
	if exp := r.Ticket(stockade.RoomVisitor{VisitorID: "v", Position: 2, AdmittedAt: t0, ExpiresAt: t0.Add(time.Minute)}, t0.Add(time.Minute)); exp.Status != stockade.TicketExpired || exp.Token != "" {
		t.Errorf("expired: %+v", exp)
	}
	early := r
	early.Status, early.OpensAt, early.Ordered, early.Admitted = stockade.RoomScheduled, t0.Add(time.Hour), 0, 0
	if tk := early.Ticket(stockade.RoomVisitor{VisitorID: "v"}, t0); tk.Status != stockade.TicketWaiting || tk.Ahead != 9 || tk.EstimatedWait < time.Hour {
		t.Errorf("before the draw: %+v", tk)
	}
	sold := r
	sold.Status = stockade.RoomSoldOut
	if tk := sold.Ticket(stockade.RoomVisitor{VisitorID: "v", Position: 7}, t0); tk.Status != stockade.TicketSoldOut {
		t.Errorf("sold out: %+v", tk)
	}
}

// TestRoomUpdateApply: changes that would reorder the queue need Reorder;
// an opened room keeps its order and opening; only a closed or sold-out
// room opens again.
func TestRoomUpdateApply(t *testing.T) {
	t.Parallel()
	r := stockade.NewRoom(stockade.NewRoomRequest{ID: "r", ShowID: "s", OpensAt: t0.Add(time.Hour), ActiveLimit: 1, AdmitPerMinute: 1}, t0)
	r.Joined = 3
	random, later := stockade.RoomRandomAtOpening, t0.Add(2*time.Hour)
	queueing, closed := stockade.RoomQueueing, stockade.RoomClosed
	for _, c := range []struct {
		name string
		room func(r *stockade.Room)
		u    stockade.RoomUpdate
		want string // the refusal's code, or "" for none
	}{
		{"order with visitors", nil, stockade.RoomUpdate{Order: &random}, stockade.EInvalidState},
		{"order with reorder", nil, stockade.RoomUpdate{Order: &random, Reorder: true}, ""},
		{"order with no one", func(r *stockade.Room) { r.Joined = 0 }, stockade.RoomUpdate{Order: &random}, ""},
		{"order once open", func(r *stockade.Room) { r.Status = stockade.RoomQueueing }, stockade.RoomUpdate{Order: &random, Reorder: true}, stockade.EInvalidState},
		{"opening, arrival order", nil, stockade.RoomUpdate{OpensAt: &later}, ""},
		{"opening, random order", func(r *stockade.Room) { r.Order = random }, stockade.RoomUpdate{OpensAt: &later}, stockade.EInvalidState},
		{"opening once open", func(r *stockade.Room) { r.Status = stockade.RoomQueueing }, stockade.RoomUpdate{OpensAt: &later}, stockade.EInvalidState},
		{"reopen a queueing room", func(r *stockade.Room) { r.Status = stockade.RoomQueueing }, stockade.RoomUpdate{Status: &queueing}, ""},
		{"reopen a scheduled room", nil, stockade.RoomUpdate{Status: &queueing}, stockade.EInvalidState},
		{"reopen a sold-out room", func(r *stockade.Room) { r.Status = stockade.RoomSoldOut }, stockade.RoomUpdate{Status: &queueing}, ""},
		{"close", nil, stockade.RoomUpdate{Status: &closed}, ""},
		{"stale version", nil, stockade.RoomUpdate{ExpectedVersion: new(int64(7))}, stockade.EVersionConflict},
	} {
		t.Run(c.name, func(t *testing.T) {
			room := r
			if c.room != nil {
				c.room(&room)
			}
			next, err := c.u.Apply(room, t0)
			if got := stockade.ErrorCode(err); got != c.want {
				t.Fatalf("Apply: %v; want code %q", err, c.want)
			}
			if err != nil && (next.Order != room.Order || !next.OpensAt.Equal(room.OpensAt) || next.Status != room.Status) {
				t.Fatalf("a refused update changed the room: %+v", next)
			}
		})
	}
}
