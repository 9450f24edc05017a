package stockade

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Waiting rooms: a queue in front of a show or a set of SKUs for a sale
// that draws a crowd many times what can be served. Visitors join and
// take a place in a promised order; the room admits them at its rate, up
// to its active limit, and never more than the remaining stock can serve;
// an admitted visitor carries a signed admission token, and while the
// room queues a hold or reservation on its show or SKUs needs one. When
// the stock is gone every queued visitor learns it at once. The queue
// lives in the store, so every instance serves one room with one order.

// Room is a waiting room in front of a show or of SKUs.
type Room struct {
	ID string `json:"id"`
	// ShowID or SKUs say what the room is in front of: one show, or
	// up to MaxRoomSKUs SKUs, never both.
	ShowID string   `json:"show_id,omitempty"`
	SKUs   []string `json:"skus,omitempty"`
	// OpensAt is when admission starts. Visitors may join before it.
	OpensAt time.Time `json:"opens_at"`
	// ActiveLimit is the most admitted visitors whose admission is in
	// force at once.
	ActiveLimit int64 `json:"active_limit"`
	// AdmitPerMinute is the most visitors admitted per minute.
	AdmitPerMinute int64 `json:"admit_per_minute"`
	// AdmissionTTL is how long an admission lasts.
	AdmissionTTL time.Duration `json:"admission_ttl"`
	// Order is the order in which visitors are admitted.
	Order RoomOrder `json:"order"`
	// PerVisitor is the most seats or units one visitor is expected to
	// take, and StockFactor how far the room may admit beyond the stock:
	// it admits visitors while those admitted and yet to hold, times
	// PerVisitor, fall short of the stock left times StockFactor (1:
	// enough visitors for the stock; 2: twice as many, for a sale where
	// many leave without buying).
	PerVisitor  int64   `json:"per_visitor"`
	StockFactor float64 `json:"stock_factor"`
	// Status is where the room is in its life: see RoomStatus.
	Status RoomStatus `json:"status"`
	// Joined counts the visitors who took a place, and Admitted those let
	// in: the places 1 … Admitted of the order. Ordered is how many
	// places the order has given: under RandomAtOpening, none until the
	// room opens.
	Joined   int64 `json:"joined"`
	Ordered  int64 `json:"ordered"`
	Admitted int64 `json:"admitted"`
	// Credit is the admissions the rate allows at CreditAt that have not
	// been made: the rate's bucket, which holds at most RoomBurst.
	Credit   float64   `json:"credit"`
	CreditAt time.Time `json:"credit_at"`
	// Paused says why the room admits no one at the moment, if it is
	// open and does not: RoomPausedActive, RoomPausedStock or empty.
	Paused string `json:"paused,omitempty"`
	// SoldOutAt is when the room found the stock gone, if it did.
	SoldOutAt time.Time `json:"sold_out_at,omitzero"`
	// Secret signs the room's admission tokens (see AdmissionToken).
	Secret    string    `json:"-"`
	Metadata  Metadata  `json:"metadata,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Version counts its changes: 1 when created.
	Version int64 `json:"version"`
}

// RoomOrder is the order in which a room admits its visitors.
type RoomOrder string

const (
	// RoomArrival admits visitors in the order they joined.
	RoomArrival RoomOrder = "arrival"
	// RoomRandomAtOpening admits the visitors who joined before the room
	// opened in a random order drawn at opening, so that coming a second
	// early gains nothing, and those who join later in arrival order after
	// them.
	RoomRandomAtOpening RoomOrder = "random_at_opening"
)

// RoomStatus is where a room is in its life.
type RoomStatus string

const (
	// RoomScheduled: not open yet. Visitors join; no one is admitted, and
	// no one may hold without an admission.
	RoomScheduled RoomStatus = "scheduled"
	// RoomQueueing: open. Visitors join and are admitted; holds need an
	// admission.
	RoomQueueing RoomStatus = "queueing"
	// RoomSoldOut: the stock was gone (nothing free, nothing held). The
	// room stopped queueing; its visitors were told, and anyone may buy
	// what comes back.
	RoomSoldOut RoomStatus = "sold_out"
	// RoomClosed: an admin closed it. Anyone may buy, as without a room.
	RoomClosed RoomStatus = "closed"
)

// Gates reports whether a room in status s requires an admission of a
// hold or reservation on what it is in front of.
func (s RoomStatus) Gates() bool { return s == RoomScheduled || s == RoomQueueing }

// Why an open room admits no one at the moment.
const (
	// RoomPausedActive: ActiveLimit admissions are in force.
	RoomPausedActive = "active_limit"
	// RoomPausedStock: the stock left is promised to the visitors
	// admitted, or all of it is held.
	RoomPausedStock = "stock"
)

// Targets returns the names of what the room is in front of, as the store
// keeps them: "show:" and the show's id, or "sku:" and each SKU.
func (r Room) Targets() []string {
	if r.ShowID != "" {
		return []string{ShowTarget(r.ShowID)}
	}
	ts := make([]string, len(r.SKUs))
	for i, sku := range r.SKUs {
		ts[i] = SKUTarget(sku)
	}
	return ts
}

// ShowTarget and SKUTarget name what a room may be in front of.
func ShowTarget(showID string) string { return "show:" + showID }
func SKUTarget(sku string) string     { return "sku:" + sku }

// The limits and defaults of rooms.
const (
	// MaxRoomSKUs is the most SKUs one room may be in front of.
	MaxRoomSKUs = 100
	// MaxRoomActiveLimit and MaxRoomAdmitPerMinute bound a room's
	// active limit and rate.
	MaxRoomActiveLimit    = 1_000_000
	MaxRoomAdmitPerMinute = 1_000_000
	// DefaultAdmissionTTL and MaxAdmissionTTL: how long an admission
	// lasts when the room does not say, and at most.
	DefaultAdmissionTTL = 10 * time.Minute
	MaxAdmissionTTL     = 24 * time.Hour
	// MaxRoomStockFactor bounds StockFactor.
	MaxRoomStockFactor = 100
	// MaxRoomOpensIn is how far ahead a room may open.
	MaxRoomOpensIn = 366 * 24 * time.Hour
	// RoomBurst is how many seconds of its rate a room that admitted no
	// one for a while may admit at once.
	RoomBurst = 10
	// DefaultRoomLimit and MaxRoomLimit bound a page of rooms.
	DefaultRoomLimit = 100
	MaxRoomLimit     = 1000
)

// NewRoomRequest asks RoomService.CreateRoom for a room.
type NewRoomRequest struct {
	ID      string
	ShowID  string
	SKUs    []string
	OpensAt time.Time // zero: now
	// ActiveLimit and AdmitPerMinute are required.
	ActiveLimit    int64
	AdmitPerMinute int64
	AdmissionTTL   time.Duration // 0: DefaultAdmissionTTL
	Order          RoomOrder     // empty: RoomArrival
	PerVisitor     int64         // 0: 1
	StockFactor    float64       // 0: 1
	Metadata       Metadata
}

// Validate refuses a room without an id or a target, with both a show
// and SKUs, a SKU named twice, a limit out of range, an unknown order, or
// an opening more than MaxRoomOpensIn after now.
func (r NewRoomRequest) Validate(now time.Time) error {
	if err := ValidateID("id", r.ID); err != nil {
		return err
	}
	switch {
	case r.ShowID == "" && len(r.SKUs) == 0:
		return invalidf("show_id: a room stands in front of a show or of skus, got neither")
	case r.ShowID != "" && len(r.SKUs) > 0:
		return invalidf("skus: a room stands in front of a show or of skus, not both")
	case r.ShowID != "":
		if err := ValidateID("show_id", r.ShowID); err != nil {
			return err
		}
	case len(r.SKUs) > MaxRoomSKUs:
		return invalidf("skus: at most %d, got %d", MaxRoomSKUs, len(r.SKUs))
	}
	for i, sku := range r.SKUs {
		if err := ValidateID(fmt.Sprintf("skus[%d]", i), sku); err != nil {
			return err
		}
		if slices.Contains(r.SKUs[:i], sku) {
			return invalidf("skus[%d]: sku %q is named twice", i, sku)
		}
	}
	if !r.OpensAt.IsZero() && r.OpensAt.Sub(now) > MaxRoomOpensIn {
		return invalidf("opens_at: at most %s ahead, got %s", MaxRoomOpensIn, r.OpensAt.Format(time.RFC3339))
	}
	if err := validateRoomLimits(r.ActiveLimit, r.AdmitPerMinute, r.AdmissionTTL, r.PerVisitor, r.StockFactor); err != nil {
		return err
	}
	if err := r.Order.validate(); err != nil {
		return err
	}
	return r.Metadata.Validate("metadata")
}

func validateRoomLimits(active, perMinute int64, ttl time.Duration, perVisitor int64, factor float64) error {
	if active < 1 || active > MaxRoomActiveLimit {
		return invalidf("active_limit: must be between 1 and %d, got %d", MaxRoomActiveLimit, active)
	}
	if perMinute < 1 || perMinute > MaxRoomAdmitPerMinute {
		return invalidf("admit_per_minute: must be between 1 and %d, got %d", MaxRoomAdmitPerMinute, perMinute)
	}
	if ttl < 0 || ttl > MaxAdmissionTTL || (ttl > 0 && ttl < time.Second) {
		return invalidf("admission_ttl_seconds: must be between 1 and %d, got %s", int(MaxAdmissionTTL/time.Second), ttl)
	}
	if perVisitor < 0 || perVisitor > MaxHoldSeats {
		return invalidf("per_visitor: must be between 1 and %d, got %d", MaxHoldSeats, perVisitor)
	}
	if math.IsNaN(factor) || factor < 0 || factor > MaxRoomStockFactor {
		return invalidf("stock_factor: must be above 0 and at most %d, got %v", MaxRoomStockFactor, factor)
	}
	return nil
}

func (o RoomOrder) validate() error {
	switch o {
	case "", RoomArrival, RoomRandomAtOpening:
		return nil
	}
	return invalidf("order: must be %q or %q, got %q", RoomArrival, RoomRandomAtOpening, o)
}

// RoomUpdate asks RoomService.UpdateRoom to change the fields it sets;
// nil ones are kept.
type RoomUpdate struct {
	OpensAt        *time.Time
	ActiveLimit    *int64
	AdmitPerMinute *int64
	AdmissionTTL   *time.Duration
	Order          *RoomOrder
	PerVisitor     *int64
	StockFactor    *float64
	// Status closes the room (RoomClosed), or opens again one that is
	// closed or sold out (RoomQueueing).
	Status *RoomStatus
	// Metadata is merged into the room's, as UpdateRequest.Metadata is.
	Metadata Metadata
	// Reorder allows a change that would reorder the visitors already
	// queued: a new Order, or a new OpensAt under RandomAtOpening once
	// visitors have joined. Without it such a change is EInvalidState.
	Reorder bool
	// ExpectedVersion, if set, makes the update a compare-and-set.
	ExpectedVersion *int64
}

// Changes reports whether u sets anything: an update that sets nothing
// (an empty PATCH) leaves the room as it is, its version too.
func (u RoomUpdate) Changes() bool {
	return u.OpensAt != nil || u.ActiveLimit != nil || u.AdmitPerMinute != nil || u.AdmissionTTL != nil || u.Order != nil ||
		u.PerVisitor != nil || u.StockFactor != nil || u.Status != nil || len(u.Metadata) > 0
}

// Validate refuses values out of range, as NewRoomRequest.Validate does,
// and zeros: an update sets a value, never the default.
func (u RoomUpdate) Validate() error {
	switch {
	case u.AdmissionTTL != nil && *u.AdmissionTTL == 0:
		return invalidf("admission_ttl_seconds: must be between 1 and %d, got 0", int(MaxAdmissionTTL/time.Second))
	case u.PerVisitor != nil && *u.PerVisitor == 0:
		return invalidf("per_visitor: must be between 1 and %d, got 0", MaxHoldSeats)
	case u.StockFactor != nil && *u.StockFactor == 0:
		return invalidf("stock_factor: must be above 0 and at most %d, got 0", MaxRoomStockFactor)
	}
	r := Room{ActiveLimit: 1, AdmitPerMinute: 1}
	u.apply(&r)
	if err := validateRoomLimits(r.ActiveLimit, r.AdmitPerMinute, r.AdmissionTTL, r.PerVisitor, r.StockFactor); err != nil {
		return err
	}
	if u.Order != nil && *u.Order == "" {
		return invalidf("order: must be %q or %q, got \"\"", RoomArrival, RoomRandomAtOpening)
	}
	if err := r.Order.validate(); err != nil {
		return err
	}
	if u.Status != nil && *u.Status != RoomClosed && *u.Status != RoomQueueing {
		return invalidf("status: may be set to %q or %q, got %q", RoomClosed, RoomQueueing, *u.Status)
	}
	return u.Metadata.Validate("metadata")
}

// apply writes u's fields over r.
func (u RoomUpdate) apply(r *Room) {
	if u.OpensAt != nil {
		r.OpensAt = *u.OpensAt
	}
	if u.ActiveLimit != nil {
		r.ActiveLimit = *u.ActiveLimit
	}
	if u.AdmitPerMinute != nil {
		r.AdmitPerMinute = *u.AdmitPerMinute
	}
	if u.AdmissionTTL != nil {
		r.AdmissionTTL = *u.AdmissionTTL
	}
	if u.Order != nil {
		r.Order = *u.Order
	}
	if u.PerVisitor != nil {
		r.PerVisitor = *u.PerVisitor
	}
	if u.StockFactor != nil {
		r.StockFactor = *u.StockFactor
	}
}

// Apply returns r changed as u says, or refuses a change that the room's
// state does not allow (EInvalidState, saying why): reordering visitors
// already queued without u.Reorder, opening again a room that is not
// closed or sold out, or moving the opening of a room that has opened.
func (u RoomUpdate) Apply(r Room, now time.Time) (Room, error) {
	if u.ExpectedVersion != nil && *u.ExpectedVersion != r.Version {
		return r, Errorf(EVersionConflict, fmt.Sprintf("room %q is at version %d, not %d", r.ID, r.Version, *u.ExpectedVersion))
	}
	next := r
	u.apply(&next)
	if u.OpensAt != nil && u.OpensAt.Sub(now) > MaxRoomOpensIn {
		return r, invalidf("opens_at: at most %s ahead, got %s", MaxRoomOpensIn, u.OpensAt.Format(time.RFC3339))
	}
	if u.Metadata != nil {
		m, err := r.Metadata.Merge(u.Metadata)
		if err != nil {
			return r, err
		}
		next.Metadata = m
	}
	if next.Order != r.Order && r.Joined > 0 && !u.Reorder {
		return r, Errorf(EInvalidState, fmt.Sprintf("room %q has %d visitors queued in %s order; changing the order reorders them: set reorder to do it", r.ID, r.Joined, r.Order))
	}
	if next.Order != r.Order && r.Status != RoomScheduled {
		return r, Errorf(EInvalidState, fmt.Sprintf("room %q is %s: its order is fixed once it opens", r.ID, r.Status))
	}
	if !next.OpensAt.Equal(r.OpensAt) {
		if r.Status != RoomScheduled {
			return r, Errorf(EInvalidState, fmt.Sprintf("room %q is %s: it has opened, and its opening cannot move", r.ID, r.Status))
		}
		if r.Order == RoomRandomAtOpening && r.Joined > 0 && !u.Reorder {
			return r, Errorf(EInvalidState, fmt.Sprintf("room %q has %d visitors waiting for the draw at opening; moving the opening changes who is in it: set reorder to do it", r.ID, r.Joined))
		}
	}
	if u.Status != nil && *u.Status != r.Status {
		switch *u.Status {
		case RoomClosed:
			next.Status = RoomClosed
		case RoomQueueing:
			if r.Status != RoomClosed && r.Status != RoomSoldOut {
				return r, Errorf(EInvalidState, fmt.Sprintf("room %q is %s; only a closed or sold-out room can be opened again", r.ID, r.Status))
			}
			next.Status = RoomQueueing
			next.SoldOutAt = time.Time{}
			if now.Before(next.OpensAt) {
				next.Status = RoomScheduled
			}
		}
	}
	return next, nil
}

// NewRoom returns the room that req asks for at now, with a new secret.
func NewRoom(req NewRoomRequest, now time.Time) Room {
	r := Room{
		ID: req.ID, ShowID: req.ShowID, SKUs: slices.Clone(req.SKUs),
		OpensAt: req.OpensAt, ActiveLimit: req.ActiveLimit, AdmitPerMinute: req.AdmitPerMinute,
		AdmissionTTL: req.AdmissionTTL, Order: req.Order, PerVisitor: req.PerVisitor, StockFactor: req.StockFactor,
		Status: RoomScheduled, Secret: NewRoomSecret(), Metadata: req.Metadata,
		CreatedAt: now, UpdatedAt: now, Version: 1,
	}
	if r.OpensAt.IsZero() || r.OpensAt.Before(now) {
		r.OpensAt = now
	}
	if r.AdmissionTTL == 0 {
		r.AdmissionTTL = DefaultAdmissionTTL
	}
	if r.Order == "" {
		r.Order = RoomArrival
	}
	if r.PerVisitor == 0 {
		r.PerVisitor = 1
	}
	if r.StockFactor == 0 {
		r.StockFactor = 1
	}
	r.CreditAt = r.OpensAt
	return r
}

// RoomStock is what a room's target has left, for its admissions: the
// seats, places or units free, and those held by live holds or
// reservations.
type RoomStock struct {
	Free int64 `json:"free"`
	Held int64 `json:"held"`
}

// SoldOut reports whether nothing is free and nothing held: nothing can
// come back but by a cancellation or new stock.
func (s RoomStock) SoldOut() bool { return s.Free <= 0 && s.Held <= 0 }

// RoomActivity is the count of a room's admissions in force: Active
// admitted visitors whose admission has not expired, Unused those of them
// who have not held yet.
type RoomActivity struct {
	Active int64
	Unused int64
}

// Admissions returns how many more visitors r may admit at now, given
// its admissions in force and the stock left, and, when that leaves
// visitors waiting for another reason than the rate, why: RoomPausedActive
// or RoomPausedStock. It is the room's one rule of admission: the rate's
// bucket, the active limit, and the stock left against what admitted
// visitors may still take.
func (r Room) Admissions(now time.Time, act RoomActivity, stock RoomStock) (n int64, paused string) {
	waiting := r.Ordered - r.Admitted
	if r.Status != RoomQueueing || waiting <= 0 {
		return 0, ""
	}
	per := max(1, r.PerVisitor)
	byActive := max(0, r.ActiveLimit-act.Active)
	// Enough visitors to take the whole of what is left, the last of them
	// perhaps fewer than PerVisitor: rounded up, or the last seats of a
	// sale would wait for a visitor who may take PerVisitor.
	byStock := max(0, ceilDiv(int64(math.Floor(float64(stock.Free)*r.StockFactor))-act.Unused*per, per))
	n = min(waiting, int64(r.credit(now)), byActive, byStock)
	switch {
	case n == waiting:
		return n, ""
	case n == byStock:
		return n, RoomPausedStock
	case n == byActive:
		return n, RoomPausedActive
	}
	return n, "" // the rate: the next round admits more
}

// ceilDiv is a/b rounded up, for b > 0.
func ceilDiv(a, b int64) int64 {
	if a <= 0 {
		return 0
	}
	return (a + b - 1) / b
}

// credit returns the rate's bucket at now: what it held at CreditAt,
// filled at AdmitPerMinute, up to RoomBurst seconds of it.
func (r Room) credit(now time.Time) float64 {
	perSecond := float64(r.AdmitPerMinute) / 60
	burst := max(1, perSecond*RoomBurst)
	elapsed := now.Sub(r.CreditAt).Seconds()
	if elapsed < 0 {
		elapsed = 0
	}
	return min(burst, r.Credit+elapsed*perSecond)
}

// Admit records n admissions made at now: they leave the rate's bucket.
func (r *Room) Admit(n int64, now time.Time) {
	r.Credit = r.credit(now) - float64(n)
	r.CreditAt = now
	r.Admitted += n
}

// RoomVisitor is a visitor's place in a room. Positions are 1, 2, … in
// the order of admission; a visitor who joined a RandomAtOpening room
// before it opened has none (0) until the draw at opening.
type RoomVisitor struct {
	RoomID    string `json:"room_id"`
	VisitorID string `json:"visitor_id"`
	Position  int64  `json:"position,omitempty"`
	// Draw orders the visitors of the draw at opening: a random number
	// drawn at joining, then the visitor id.
	Draw     int64     `json:"-"`
	JoinedAt time.Time `json:"joined_at"`
	// AdmittedAt and ExpiresAt are set once the visitor is admitted:
	// when, and when the admission ends.
	AdmittedAt time.Time `json:"admitted_at,omitzero"`
	ExpiresAt  time.Time `json:"expires_at,omitzero"`
	// UsedAt is when an admitted visitor first held.
	UsedAt time.Time `json:"-"`
	// Owner is the id of the API key that joined the visitor: another
	// storefront key finds no such visitor (Actor.Sees).
	Owner string `json:"-"`
}

// NewRoomDraw returns a random draw for a visitor joining a room.
func NewRoomDraw() int64 {
	var b [8]byte
	rand.Read(b[:]) // never fails
	var v int64
	for _, c := range b {
		v = v<<8 | int64(c)
	}
	return v & math.MaxInt64
}

// RoomTicket is what a visitor learns of its place: whether it waits, is
// admitted or was told the sale is over, how many are ahead, how long the
// wait may be, and once admitted the token that proves it.
type RoomTicket struct {
	RoomID    string       `json:"room_id"`
	VisitorID string       `json:"visitor_id"`
	Status    TicketStatus `json:"status"`
	// Position is the visitor's place (0 while the draw at opening is to
	// come), and Ahead how many visitors are before it and not admitted.
	Position int64 `json:"position,omitempty"`
	Ahead    int64 `json:"ahead"`
	// EstimatedWait is how long until the visitor is admitted at the rate
	// the room admits at; 0 once admitted.
	EstimatedWait time.Duration `json:"-"`
	// Token proves the admission, until ExpiresAt; set once admitted.
	Token     string    `json:"token,omitempty"`
	ExpiresAt time.Time `json:"expires_at,omitzero"`
	JoinedAt  time.Time `json:"joined_at"`
	// OpensAt is when the room opens.
	OpensAt time.Time `json:"opens_at"`
}

// TicketStatus is where a visitor stands in a room.
type TicketStatus string

const (
	// TicketWaiting: in the queue, or waiting for the room to open.
	TicketWaiting TicketStatus = "waiting"
	// TicketAdmitted: admitted, with a token in force.
	TicketAdmitted TicketStatus = "admitted"
	// TicketExpired: admitted once, and the admission has run out.
	TicketExpired TicketStatus = "expired"
	// TicketSoldOut: the sale sold out before the visitor was served.
	TicketSoldOut TicketStatus = "sold_out"
	// TicketClosed: the room closed; the visitor may buy without it.
	TicketClosed TicketStatus = "closed"
)

// Ticket returns v's ticket in r at now, its token signed with r's
// secret.
func (r Room) Ticket(v RoomVisitor, now time.Time) RoomTicket {
	t := RoomTicket{RoomID: r.ID, VisitorID: v.VisitorID, Position: v.Position, JoinedAt: v.JoinedAt, OpensAt: r.OpensAt}
	switch {
	case !v.AdmittedAt.IsZero() && now.Before(v.ExpiresAt):
		t.Status = TicketAdmitted
		t.ExpiresAt = v.ExpiresAt
		t.Token = AdmissionToken(Admission{RoomID: r.ID, VisitorID: v.VisitorID, Position: v.Position, ExpiresAt: v.ExpiresAt}, r.Secret)
		return t
	case !v.AdmittedAt.IsZero():
		t.Status = TicketExpired
		t.ExpiresAt = v.ExpiresAt
		return t
	case r.Status == RoomSoldOut:
		t.Status = TicketSoldOut
		return t
	case r.Status == RoomClosed:
		t.Status = TicketClosed
		return t
	}
	t.Status = TicketWaiting
	if v.Position > 0 {
		t.Ahead = max(0, v.Position-r.Admitted-1)
	} else {
		t.Ahead = r.Joined - 1 // the draw may put anyone first
	}
	perSecond := float64(r.AdmitPerMinute) / 60
	wait := time.Duration(float64(t.Ahead+1) / perSecond * float64(time.Second))
	if now.Before(r.OpensAt) {
		wait += r.OpensAt.Sub(now)
	}
	t.EstimatedWait = wait.Round(time.Second)
	return t
}

// Admission is what an admission token says: this visitor was admitted to
// this room, at this place, until ExpiresAt.
type Admission struct {
	RoomID    string    `json:"room"`
	VisitorID string    `json:"visitor"`
	Position  int64     `json:"position"`
	ExpiresAt time.Time `json:"-"`
}

// admissionClaims is an admission token's payload as it is encoded.
type admissionClaims struct {
	Room     string `json:"room"`
	Visitor  string `json:"visitor"`
	Position int64  `json:"position"`
	Expires  int64  `json:"exp"`
}

// admissionPrefix starts every admission token and names its format.
const admissionPrefix = "adm1."

// AdmissionToken returns the token of a: "adm1.", the payload, ".", the
// signature. The payload is the JSON object {"room", "visitor",
// "position", "exp" (Unix seconds)} and the signature the HMAC-SHA256,
// keyed with the room's secret, of "adm1." and the payload, both in
// unpadded base64url. A shop's front end checks a token with the room's
// secret as VerifyAdmission does.
func AdmissionToken(a Admission, secret string) string {
	claims, _ := json.Marshal(admissionClaims{Room: a.RoomID, Visitor: a.VisitorID, Position: a.Position, Expires: a.ExpiresAt.Unix()})
	body := admissionPrefix + base64.RawURLEncoding.EncodeToString(claims)
	return body + "." + base64.RawURLEncoding.EncodeToString(admissionMAC(secret, body))
}

func admissionMAC(secret, body string) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(body))
	return m.Sum(nil)
}

// ParseAdmission returns what token says without checking its signature:
// the room it names, for finding the secret that checks it.
func ParseAdmission(token string) (Admission, error) {
	rest, ok := strings.CutPrefix(token, admissionPrefix)
	payload, _, ok2 := strings.Cut(rest, ".")
	if !ok || !ok2 {
		return Admission{}, Errorf(EAdmissionInvalid, "admission token: not a token of this service")
	}
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return Admission{}, Errorf(EAdmissionInvalid, "admission token: its payload is not base64url")
	}
	var c admissionClaims
	if err := json.Unmarshal(raw, &c); err != nil || c.Room == "" || c.Visitor == "" {
		return Admission{}, Errorf(EAdmissionInvalid, "admission token: its payload does not name a room and a visitor")
	}
	return Admission{RoomID: c.Room, VisitorID: c.Visitor, Position: c.Position, ExpiresAt: time.Unix(c.Expires, 0)}, nil
}

// VerifyAdmission checks token against room r for visitor at now: signed
// with r's secret, for r and for visitor, not expired. Each refusal is
// EAdmissionInvalid and says which check failed.
func VerifyAdmission(r Room, token, visitor string, now time.Time) (Admission, error) {
	a, err := ParseAdmission(token)
	if err != nil {
		return a, err
	}
	body, sig, _ := strings.Cut(token[len(admissionPrefix):], ".")
	mac, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(mac, admissionMAC(r.Secret, admissionPrefix+body)) {
		return a, Errorf(EAdmissionInvalid, fmt.Sprintf("admission token: the signature does not match room %q's secret", r.ID))
	}
	switch {
	case a.RoomID != r.ID:
		return a, Errorf(EAdmissionInvalid, fmt.Sprintf("admission token: it admits to room %q, not %q", a.RoomID, r.ID))
	case a.VisitorID != visitor:
		return a, Errorf(EAdmissionInvalid, fmt.Sprintf("admission token: it admits visitor %q, not %q", a.VisitorID, visitor))
	case !now.Before(a.ExpiresAt):
		return a, Errorf(EAdmissionInvalid, fmt.Sprintf("admission token: it expired at %s", a.ExpiresAt.UTC().Format(time.RFC3339)))
	}
	return a, nil
}

// AdmissionProof is what a hold or reservation carries through a room: the
// visitor making it and the token that admitted them.
type AdmissionProof struct {
	VisitorID string `json:"visitor_id"`
	Token     string `json:"token"`
}

// MaxAdmissionTokenLength bounds an admission token, in bytes.
const MaxAdmissionTokenLength = 1024

// Validate refuses a proof without a valid visitor id or a token, or with
// a token over MaxAdmissionTokenLength.
func (p *AdmissionProof) Validate() error {
	if p == nil {
		return nil
	}
	if err := ValidateID("admission.visitor_id", p.VisitorID); err != nil {
		return err
	}
	if p.Token == "" || len(p.Token) > MaxAdmissionTokenLength {
		return invalidf("admission.token: must be 1 to %d bytes, got %d", MaxAdmissionTokenLength, len(p.Token))
	}
	return nil
}

// NewRoomSecret returns a new secret for signing admission tokens: "rsec_"
// and 256 random bits in hex.
func NewRoomSecret() string {
	var random [32]byte
	rand.Read(random[:]) // never fails
	return "rsec_" + hex.EncodeToString(random[:])
}

// JoinRequest asks RoomService.JoinRoom for a visitor's place.
type JoinRequest struct {
	RoomID    string
	VisitorID string
}

// Validate refuses ids that ValidateID refuses.
func (j JoinRequest) Validate() error {
	if err := ValidateID("room id", j.RoomID); err != nil {
		return err
	}
	return ValidateID("visitor_id", j.VisitorID)
}

// RoomQuery selects a page of rooms: those after Cursor, in id order.
type RoomQuery struct {
	Cursor string
	Limit  int
}

// Validate refuses a limit out of range.
func (q RoomQuery) Validate() error {
	if q.Limit < 0 || q.Limit > MaxRoomLimit {
		return invalidf("limit: must be between 1 and %d (0 for %d), got %d", MaxRoomLimit, DefaultRoomLimit, q.Limit)
	}
	return nil
}

// RoomPage is a page of rooms and the cursor of the next ("" at the end).
type RoomPage struct {
	Rooms []RoomView
	Next  string
}

// RoomView is a room as the service shows it: with what it has in force
// and the stock its target has left.
type RoomView struct {
	Room
	Active int64 `json:"active"`
	// Queued is how many visitors wait.
	Queued int64 `json:"queued"`
	// LongestWait is the estimated wait of the last visitor in the queue.
	LongestWait time.Duration `json:"longest_wait"`
	Stock       RoomStock     `json:"stock"`
}

// RoomDocument is a room as the API and the event feed show it: its
// settings, its counts, what it has in force and the stock left; never
// the state the service keeps to itself (its secret, its rate's credit,
// the places its order has given).
type RoomDocument struct {
	ID                  string    `json:"id"`
	ShowID              string    `json:"show_id,omitempty"`
	SKUs                []string  `json:"skus,omitempty"`
	OpensAt             time.Time `json:"opens_at"`
	ActiveLimit         int64     `json:"active_limit"`
	AdmitPerMinute      int64     `json:"admit_per_minute"`
	AdmissionTTLSeconds int64     `json:"admission_ttl_seconds"`
	Order               string    `json:"order"`
	PerVisitor          int64     `json:"per_visitor"`
	StockFactor         float64   `json:"stock_factor"`
	Status              string    `json:"status"`
	Joined              int64     `json:"joined"`
	Admitted            int64     `json:"admitted"`
	Paused              string    `json:"paused,omitempty"`
	SoldOutAt           time.Time `json:"sold_out_at,omitzero"`
	Metadata            Metadata  `json:"metadata,omitempty"`
	CreatedAt           time.Time `json:"created_at"`
	UpdatedAt           time.Time `json:"updated_at"`
	Version             int64     `json:"version"`
	// Active counts the admissions in force, Queued the visitors
	// waiting; LongestWaitSeconds is the estimated wait of the last of
	// them, 0 when none waits.
	Active             int64     `json:"active"`
	Queued             int64     `json:"queued"`
	LongestWaitSeconds int64     `json:"longest_wait_seconds"`
	Stock              RoomStock `json:"stock"`
}

// Document returns v as the API shows it: durations in whole seconds,
// rounded up, and times in UTC to the microsecond.
func (v RoomView) Document() RoomDocument {
	r := v.Room
	return RoomDocument{ID: r.ID, ShowID: r.ShowID, SKUs: r.SKUs, OpensAt: wireTime(r.OpensAt), ActiveLimit: r.ActiveLimit,
		AdmitPerMinute: r.AdmitPerMinute, AdmissionTTLSeconds: ceilSeconds(r.AdmissionTTL), Order: string(r.Order),
		PerVisitor: r.PerVisitor, StockFactor: r.StockFactor, Status: string(r.Status), Joined: r.Joined, Admitted: r.Admitted,
		Paused: r.Paused, SoldOutAt: wireTime(r.SoldOutAt), Metadata: r.Metadata, CreatedAt: wireTime(r.CreatedAt),
		UpdatedAt: wireTime(r.UpdatedAt), Version: r.Version, Active: v.Active, Queued: v.Queued,
		LongestWaitSeconds: ceilSeconds(v.LongestWait), Stock: v.Stock}
}

// View returns the room d shows, without what a document leaves out.
func (d RoomDocument) View() RoomView {
	return RoomView{Room: Room{ID: d.ID, ShowID: d.ShowID, SKUs: d.SKUs, OpensAt: d.OpensAt,
		ActiveLimit: d.ActiveLimit, AdmitPerMinute: d.AdmitPerMinute, AdmissionTTL: time.Duration(d.AdmissionTTLSeconds) * time.Second,
		Order: RoomOrder(d.Order), PerVisitor: d.PerVisitor, StockFactor: d.StockFactor, Status: RoomStatus(d.Status),
		Joined: d.Joined, Admitted: d.Admitted, Paused: d.Paused, SoldOutAt: d.SoldOutAt, Metadata: d.Metadata,
		CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt, Version: d.Version},
		Active: d.Active, Queued: d.Queued, LongestWait: time.Duration(d.LongestWaitSeconds) * time.Second, Stock: d.Stock}
}

// wireTime is t as documents carry it: in UTC, to the microsecond.
func wireTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// ceilSeconds is d in whole seconds, rounded up.
func ceilSeconds(d time.Duration) int64 { return int64((d + time.Second - 1) / time.Second) }

// RoomService runs waiting rooms: what the HTTP API exposes and the
// engine implements, a part of Service. Admins create and change rooms;
// storefront keys join visitors and read their tickets.
type RoomService interface {
	// CreateRoom puts a room in front of a show or SKUs and returns it
	// with the secret that signs its tokens, which no other call returns
	// (a retry with the call's idempotency key returns it again: the
	// secret is kept in the database as it is, to sign with). A show or SKU that a gating room is already in
	// front of is EInvalidState, naming that room; an unknown show
	// ENotFound.
	CreateRoom(ctx context.Context, req NewRoomRequest, idem *Idempotency) (RoomView, string, error)

	// Room returns a room (ENotFound if there is none).
	Room(ctx context.Context, id string) (RoomView, error)

	// Rooms returns a page of the rooms, in id order.
	Rooms(ctx context.Context, q RoomQuery) (RoomPage, error)

	// UpdateRoom changes what u sets, as RoomUpdate.Apply allows.
	UpdateRoom(ctx context.Context, id string, u RoomUpdate, idem *Idempotency) (RoomView, error)

	// JoinRoom gives a visitor a place in a room that is scheduled or
	// queueing (EInvalidState otherwise), or returns the place it has: one
	// place per visitor, whatever how often it joins.
	JoinRoom(ctx context.Context, req JoinRequest) (RoomTicket, error)

	// RoomTicket returns a visitor's ticket (ENotFound if the visitor has
	// not joined).
	RoomTicket(ctx context.Context, roomID, visitorID string) (RoomTicket, error)

	// LeaveRoom ends a visitor's admission at once, and returns its
	// ticket (expired): the shop calls it when the visitor has bought or
	// left, so that the room's active limit lets the next one in without
	// waiting for the admission to run out. Leaving again changes
	// nothing. A visitor still waiting has no admission to end
	// (EInvalidState).
	LeaveRoom(ctx context.Context, roomID, visitorID string) (RoomTicket, error)

	// WatchTicket returns a channel of a visitor's tickets: the ticket of
	// the moment, then each change, closed once the ticket has an end
	// (sold out, closed, expired) or ctx ends. A reader that falls behind
	// gets the newest ticket, not each one. ENotFound at once for a
	// visitor that has not joined.
	WatchTicket(ctx context.Context, roomID, visitorID string) (<-chan RoomTicket, error)
}
