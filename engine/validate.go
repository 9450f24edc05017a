package engine

import (
	"fmt"
	"math"
	"slices"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/stockade/stockade"
)

// checkID refuses an empty or overlong identifier, or one that is not
// UTF-8 or holds control characters. what names it in the message.
func checkID(what, id string) error {
	switch {
	case id == "":
		return refuse(stockade.EInvalid, "%s is empty", what)
	case len(id) > MaxIDLength:
		return refuse(stockade.EInvalid, "%s is %d bytes long, more than %d", what, len(id), MaxIDLength)
	}
	return checkText(what, id)
}

// checkText refuses text that is overlong, not UTF-8 or holds control
// characters.
func checkText(what, s string) error {
	switch {
	case len(s) > MaxTextLength:
		return refuse(stockade.EInvalid, "%s is %d bytes long, more than %d", what, len(s), MaxTextLength)
	case !utf8.ValidString(s):
		return refuse(stockade.EInvalid, "%s is not valid UTF-8", what)
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return refuse(stockade.EInvalid, "%s %q holds a control character", what, s)
		}
	}
	return nil
}

func checkKey(k stockade.Key) error {
	if err := checkID("sku", k.SKU); err != nil {
		return err
	}
	return checkID("location", k.Location)
}

// checkPoint refuses coordinates that are not finite or out of range.
func checkPoint(what string, p stockade.Point) error {
	switch {
	case math.IsNaN(p.Lat) || p.Lat < -90 || p.Lat > 90:
		return refuse(stockade.EInvalid, "%s latitude %v is not between -90 and 90", what, p.Lat)
	case math.IsNaN(p.Lon) || p.Lon < -180 || p.Lon > 180:
		return refuse(stockade.EInvalid, "%s longitude %v is not between -180 and 180", what, p.Lon)
	}
	return nil
}

func checkLocation(loc stockade.Location) error {
	if err := checkID("location id", loc.ID); err != nil {
		return err
	}
	if err := checkText("location name", loc.Name); err != nil {
		return err
	}
	return checkPoint("location", stockade.Point{Lat: loc.Lat, Lon: loc.Lon})
}

func checkQuantity(what string, q int64) error {
	if q < 0 || q > MaxQuantity {
		return refuse(stockade.EInvalid, "%s %d is not between 0 and %d", what, q, MaxQuantity)
	}
	return nil
}

// need is what a request asks of one SKU at one location, or anywhere
// when Location is empty: its lines merged.
type need struct {
	SKU      string
	Location string
	Quantity int64
}

func (n need) key() stockade.Key { return stockade.Key{SKU: n.SKU, Location: n.Location} }

// request is a validated ReserveRequest.
type request struct {
	lines  []stockade.Line
	needs  []need // merged per (SKU, location), sorted, "" location first per SKU
	ttl    time.Duration
	shipTo *stockade.Point

	located  []stockade.Key // the keys that needs name, sorted
	anywhere []string       // the SKUs with a need without location, sorted
	skus     []string       // every SKU, sorted
}

// checkRequest validates req and merges its lines. ttl is checked unless
// checkout, which ignores it.
func (e *Engine) checkRequest(req stockade.ReserveRequest, checkout bool) (*request, error) {
	switch n := len(req.Lines); {
	case n == 0:
		return nil, refuse(stockade.EInvalid, "no lines")
	case n > MaxLines:
		return nil, refuse(stockade.EInvalid, "%d lines, more than %d", n, MaxLines)
	}
	r := &request{lines: slices.Clone(req.Lines), ttl: e.opts.DefaultTTL}
	if !checkout {
		switch {
		case req.TTL < 0:
			return nil, refuse(stockade.EInvalid, "ttl %v is negative", req.TTL)
		case req.TTL > e.opts.MaxTTL:
			return nil, refuse(stockade.EInvalid, "ttl %v is longer than the maximum, %v", req.TTL, e.opts.MaxTTL)
		case req.TTL > 0:
			r.ttl = req.TTL
		}
	}
	if req.ShipTo != nil {
		if err := checkPoint("ship-to", *req.ShipTo); err != nil {
			return nil, err
		}
		p := *req.ShipTo
		r.shipTo = &p
	}
	merged := map[stockade.Key]int64{}
	for i, l := range req.Lines {
		if err := checkID(fmt.Sprintf("line %d: sku", i+1), l.SKU); err != nil {
			return nil, err
		}
		if l.Location != "" {
			if err := checkID(fmt.Sprintf("line %d: location", i+1), l.Location); err != nil {
				return nil, err
			}
		}
		if l.Quantity <= 0 || l.Quantity > MaxQuantity {
			return nil, refuse(stockade.EInvalid, "line %d: quantity %d is not between 1 and %d", i+1, l.Quantity, MaxQuantity)
		}
		merged[stockade.Key{SKU: l.SKU, Location: l.Location}] += l.Quantity // ≤ MaxLines × MaxQuantity: no overflow
	}
	for k, q := range merged {
		r.needs = append(r.needs, need{SKU: k.SKU, Location: k.Location, Quantity: q})
		if k.Location == "" {
			r.anywhere = append(r.anywhere, k.SKU)
		} else {
			r.located = append(r.located, k)
		}
		r.skus = append(r.skus, k.SKU)
	}
	slices.SortFunc(r.needs, func(a, b need) int { return a.key().Compare(b.key()) })
	slices.SortFunc(r.located, stockade.Key.Compare)
	slices.Sort(r.anywhere)
	slices.Sort(r.skus)
	r.skus = slices.Compact(r.skus)
	return r, nil
}

// sortedKeys returns the keys of m in key order.
func sortedKeys[V any](m map[stockade.Key]V) []stockade.Key {
	ks := make([]stockade.Key, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, stockade.Key.Compare)
	return ks
}
